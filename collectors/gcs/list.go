package gcs

import (
	"context"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	storage "google.golang.org/api/storage/v1"
)

// listedFields are the object fields read (the rest are not asked for).
const listedFields = "items(name,size,timeCreated,updated,metadata,eventBasedHold,temporaryHold,retention),nextPageToken"

// list reads every object under prefix, one page per call (each under its
// own deadline, retried on its own). More than max objects is an error: a
// checkpoint folder cut off would look smaller or older than it is. A
// listing stopped by a bound (max objects, a page cap, a page that does
// not advance) returns the objects listed until then with its error, for
// the caller to count as read in part.
func (c *Collector) list(ctx context.Context, bucket, prefix string) ([]*storage.Object, error) {
	return ListObjects(ctx, c.Client, c.Project, bucket, prefix, c.MaxObjects, c.retry, c.Timeout)
}

// ListObjects is the listing CollectUnit does, for fix to read a folder
// again; userProject is billed when set (requester pays).
func ListObjects(ctx context.Context, svc *storage.Service, userProject, bucket, prefix string, max int, retry remote.RetryPolicy, timeout time.Duration) ([]*storage.Object, error) {
	// The callers' errors name the prefix (gcs: list gs://b/p: ...).
	pages := remote.Pager{What: "storage.objects.list", Max: max/pageSize + 2, MaxKey: "max_objects"}
	var all []*storage.Object
	token := ""
	for {
		p, err := gcp.Call(ctx, retry, timeout, func(ctx context.Context) (*storage.Objects, error) {
			call := svc.Objects.List(bucket).Prefix(prefix).MaxResults(pageSize).PageToken(token).Fields(listedFields).Context(ctx)
			if userProject != "" {
				call = call.UserProject(userProject)
			}
			return call.Do()
		})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(p.Items))
		for i, o := range p.Items {
			if o != nil {
				ids[i] = o.Name
			}
		}
		if err := pages.Next(p.NextPageToken, ids...); err != nil {
			return all, err
		}
		all = append(all, p.Items...)
		if len(all) > max {
			return all, fmt.Errorf("more than %d objects (max_objects): raise max_objects or list narrower prefixes", max)
		}
		if p.NextPageToken == "" {
			return all, nil
		}
		token = p.NextPageToken
	}
}
