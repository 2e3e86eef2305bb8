package datalineage

import (
	"context"
	"fmt"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// pageSize is asked of every listing; the service may answer with fewer.
const pageSize = 100

// fetchFunc fetches one page: exactly one RPC (see gcp.Page).
type fetchFunc[T any] func(pageSize int, pageToken string) ([]T, string, error)

// listAll reads every page of a listing (gcp.Pages), bounded by
// max_pages.
func listAll[T any](ctx context.Context, c *Collector, what string, list func(context.Context) fetchFunc[T], key func(T) string) ([]T, error) {
	return gcp.Pages(ctx, c.retry, c.Timeout, &remote.Pager{What: what, Max: c.MaxPages, MaxKey: "max_pages"},
		func(ctx context.Context, token string) (gcp.Page[T], error) {
			items, next, err := list(ctx)(pageSize, token)
			return gcp.Page[T]{Items: items, Next: next}, err
		}, key)
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
		}, gcp.NoClientRetry, gcp.AnswerCap).InternalFetch
	}, (*lineagepb.Link).GetName)
}
