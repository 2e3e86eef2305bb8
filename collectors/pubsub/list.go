package pubsub

import (
	"context"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	gax "github.com/googleapis/gax-go/v2"
	"google.golang.org/grpc"
)

// noClientRetry turns off the client's own retries for list calls: they
// do not cover RESOURCE_EXHAUSTED (429), and two retry layers multiply
// waits. gcp.Call retries each page instead, within the retry budget.
var noClientRetry = gax.WithRetry(func() gax.Retryer { return nil })

// answerCap bounds one page's answer as the REST collectors' answers are
// bounded: the admin clients accept up to 2 GiB per message, so a server
// sending 50 MB (or 2 GB) would be read whole into memory.
var answerCap = gax.WithGRPCOptions(grpc.MaxCallRecvMsgSize(gcp.MaxAnswerBytes))

// fetchFunc fetches one page: exactly one RPC. The iterators' own paging
// (iterator.Pager) keeps fetching until a page is full, so a server
// answering empty pages with fresh tokens would hold one "page" forever;
// InternalFetch, the generated single-page call, does not.
type fetchFunc[T any] func(pageSize int, pageToken string) ([]T, string, error)

func (c *Collector) listTopics(ctx context.Context, project string) ([]*pubsubpb.Topic, error) {
	return listAll(ctx, c, func(ctx context.Context) fetchFunc[*pubsubpb.Topic] {
		return c.topics.ListTopics(ctx, &pubsubpb.ListTopicsRequest{Project: "projects/" + project}, noClientRetry, answerCap).InternalFetch
	}, "pubsub.projects.topics.list", (*pubsubpb.Topic).GetName)
}

func (c *Collector) listSubscriptions(ctx context.Context, project string) ([]*pubsubpb.Subscription, error) {
	return listAll(ctx, c, func(ctx context.Context) fetchFunc[*pubsubpb.Subscription] {
		return c.subs.ListSubscriptions(ctx, &pubsubpb.ListSubscriptionsRequest{Project: "projects/" + project}, noClientRetry, answerCap).InternalFetch
	}, "pubsub.projects.subscriptions.list", (*pubsubpb.Subscription).GetName)
}

func (c *Collector) listSnapshots(ctx context.Context, project string) ([]*pubsubpb.Snapshot, error) {
	return listAll(ctx, c, func(ctx context.Context) fetchFunc[*pubsubpb.Snapshot] {
		return c.snaps.ListSnapshots(ctx, &pubsubpb.ListSnapshotsRequest{Project: "projects/" + project}, noClientRetry, answerCap).InternalFetch
	}, "pubsub.projects.snapshots.list", (*pubsubpb.Snapshot).GetName)
}

// listAll reads every page of a list call, each page one call under its
// own deadline and retried on its own. A listing that never stops paging
// is an error naming it (what: the API method; the caller names the
// project).
func listAll[T any](ctx context.Context, c *Collector, list func(context.Context) fetchFunc[T], what string, name func(T) string) ([]T, error) {
	type page struct {
		items []T
		next  string
	}
	var all []T
	pages := remote.Pager{What: what, Max: c.maxPages}
	token := ""
	for {
		p, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (page, error) {
			var p page
			var err error
			p.items, p.next, err = list(ctx)(int(c.pageSize), token)
			return p, err
		})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(p.items))
		for i, it := range p.items {
			ids[i] = name(it)
		}
		if err := pages.Next(p.next, ids...); err != nil {
			return nil, err
		}
		all = append(all, p.items...)
		if p.next == "" {
			return all, nil
		}
		token = p.next
	}
}
