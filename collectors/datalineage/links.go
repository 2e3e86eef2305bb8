package datalineage

import (
	"context"
	"fmt"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	gax "github.com/googleapis/gax-go/v2"
	"google.golang.org/grpc"
)

// pageSize is asked of every listing; the service may answer with fewer.
const pageSize = 100

// noClientRetry turns off the client's own retries (UNAVAILABLE, with
// waits up to a minute): gcp.Call retries each page within the budget.
var noClientRetry = gax.WithRetry(func() gax.Retryer { return nil })

// answerCap bounds one answer: the client accepts 2 GiB messages.
var answerCap = gax.WithGRPCOptions(grpc.MaxCallRecvMsgSize(gcp.MaxAnswerBytes))

// fetchFunc fetches one page: exactly one RPC (the iterators' own paging
// keeps fetching until a page is full, so a server answering empty pages
// with fresh tokens would hold one "page" forever).
type fetchFunc[T any] func(pageSize int, pageToken string) ([]T, string, error)

// listAll reads every page of a listing, each page one call under its own
// deadline and retried on its own, bounded by max_pages and required to
// advance (remote.Pager).
func listAll[T any](ctx context.Context, c *Collector, what string, list func(context.Context) fetchFunc[T], key func(T) string) ([]T, error) {
	type page struct {
		items []T
		next  string
	}
	var all []T
	pages := remote.Pager{What: what, Max: c.MaxPages, MaxKey: "max_pages"}
	token := ""
	for {
		p, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (page, error) {
			var p page
			var err error
			p.items, p.next, err = list(ctx)(pageSize, token)
			return p, err
		})
		if err != nil {
			return nil, err
		}
		keys := make([]string, len(p.items))
		for i, it := range p.items {
			keys[i] = key(it)
		}
		if err := pages.Next(p.next, keys...); err != nil {
			return nil, err
		}
		all = append(all, p.items...)
		if p.next == "" {
			return all, nil
		}
		token = p.next
	}
}

// downstream follows links breadth first from every configured table, up
// to max_depth links away, each entity searched once. More than
// max_links links is an error: the graph is not known whole.
func (c *Collector) downstream(ctx context.Context, parent string) ([]*lineagepb.Link, error) {
	type entity struct {
		fqn   string
		depth int
	}
	var queue []entity
	searched := map[string]bool{}
	for _, t := range c.Tables {
		if !searched[t] {
			searched[t] = true
			queue = append(queue, entity{t, 0})
		}
	}
	var out []*lineagepb.Link
	kept := map[string]bool{}
	for len(queue) > 0 {
		e := queue[0]
		queue = queue[1:]
		links, err := c.searchLinks(ctx, parent, e.fqn)
		if err != nil {
			return nil, fmt.Errorf("search links from %s: %w", e.fqn, err)
		}
		for i, l := range links {
			src, dst := fqn(l.GetSource()), fqn(l.GetTarget())
			if l.GetName() == "" || src == "" || dst == "" {
				return nil, fmt.Errorf("search links from %s: link %d has no name, source or target", e.fqn, i)
			}
			if kept[l.GetName()] {
				continue
			}
			kept[l.GetName()] = true
			if len(out) == c.MaxLinks {
				return nil, fmt.Errorf("more than max_links (%d) links downstream of %v; raise max_links or lower max_depth", c.MaxLinks, c.Tables)
			}
			out = append(out, l)
			if e.depth+1 < c.MaxDepth && !searched[dst] {
				searched[dst] = true
				queue = append(queue, entity{dst, e.depth + 1})
			}
		}
	}
	return out, nil
}

// searchLinks lists the links whose source is the entity.
func (c *Collector) searchLinks(ctx context.Context, parent, source string) ([]*lineagepb.Link, error) {
	// The caller's error names the location and the source.
	return listAll(ctx, c, "datalineage.searchLinks", func(ctx context.Context) fetchFunc[*lineagepb.Link] {
		return c.client.SearchLinks(ctx, &lineagepb.SearchLinksRequest{
			Parent:   parent,
			Criteria: &lineagepb.SearchLinksRequest_Source{Source: &lineagepb.EntityReference{FullyQualifiedName: source}},
		}, noClientRetry, answerCap).InternalFetch
	}, (*lineagepb.Link).GetName)
}
