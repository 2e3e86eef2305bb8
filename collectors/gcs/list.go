package gcs

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/storage"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"google.golang.org/api/iterator"
)

// listedAttrs are the object fields read (the rest are not asked for).
var listedAttrs = []string{"Name", "Size", "Created", "Updated", "Metadata", "EventBasedHold", "TemporaryHold", "Retention"}

// list reads every object under prefix, one page per call (each under its
// own deadline, retried on its own), through the storage iterator. More
// than max objects is an error: a checkpoint folder cut off would look
// smaller or older than it is. A listing stopped by a bound (max objects,
// a page cap, a page that does not advance) returns the objects listed
// until then with its error, for the caller to count as read in part.
func (c *Collector) list(ctx context.Context, bkt *storage.BucketHandle, bucket, prefix string) ([]*storage.ObjectAttrs, error) {
	return ListObjects(ctx, bkt, bucket, prefix, c.MaxObjects, c.retry, c.Timeout)
}

// ListObjects is the listing CollectUnit does, for fix to read a folder again.
func ListObjects(ctx context.Context, bkt *storage.BucketHandle, bucket, prefix string, max int, retry remote.RetryPolicy, timeout time.Duration) ([]*storage.ObjectAttrs, error) {
	q := &storage.Query{Prefix: prefix}
	if err := q.SetAttrSelection(listedAttrs); err != nil {
		return nil, err
	}
	type page struct {
		objs []*storage.ObjectAttrs
		next string
	}
	// The callers' errors name the prefix (gcs: list gs://b/p: ...).
	pages := remote.Pager{What: "storage.objects.list", Max: max/pageSize + 2, MaxKey: "max_objects"}
	var all []*storage.ObjectAttrs
	token := ""
	for {
		p, err := gcp.Call(ctx, retry, timeout, func(ctx context.Context) (page, error) {
			var p page
			var err error
			p.next, err = iterator.NewPager(bkt.Objects(ctx, q), pageSize, token).NextPage(&p.objs)
			return p, err
		})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(p.objs))
		for i, o := range p.objs {
			ids[i] = o.Name
		}
		if err := pages.Next(p.next, ids...); err != nil {
			return all, err
		}
		all = append(all, p.objs...)
		if len(all) > max {
			return all, fmt.Errorf("more than %d objects (max_objects): raise max_objects or list narrower prefixes", max)
		}
		if p.next == "" {
			return all, nil
		}
		token = p.next
	}
}
