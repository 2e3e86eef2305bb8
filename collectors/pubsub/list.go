package pubsub

import (
	"context"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
)

func (c *Collector) listTopics(ctx context.Context, project string) ([]*pubsubpb.Topic, error) {
	req := &pubsubpb.ListTopicsRequest{Project: "projects/" + project}
	return listAll(ctx, c, "pubsub.projects.topics.list", func(ctx context.Context, token string) (gcp.Page[*pubsubpb.Topic], error) {
		items, next, err := c.topics.ListTopics(ctx, req, gcp.NoClientRetry, gcp.AnswerCap).InternalFetch(int(c.pageSize), token)
		return gcp.Page[*pubsubpb.Topic]{Items: items, Next: next}, err
	}, (*pubsubpb.Topic).GetName)
}

func (c *Collector) listSubscriptions(ctx context.Context, project string) ([]*pubsubpb.Subscription, error) {
	req := &pubsubpb.ListSubscriptionsRequest{Project: "projects/" + project}
	return listAll(ctx, c, "pubsub.projects.subscriptions.list", func(ctx context.Context, token string) (gcp.Page[*pubsubpb.Subscription], error) {
		items, next, err := c.subs.ListSubscriptions(ctx, req, gcp.NoClientRetry, gcp.AnswerCap).InternalFetch(int(c.pageSize), token)
		return gcp.Page[*pubsubpb.Subscription]{Items: items, Next: next}, err
	}, (*pubsubpb.Subscription).GetName)
}

func (c *Collector) listSnapshots(ctx context.Context, project string) ([]*pubsubpb.Snapshot, error) {
	req := &pubsubpb.ListSnapshotsRequest{Project: "projects/" + project}
	return listAll(ctx, c, "pubsub.projects.snapshots.list", func(ctx context.Context, token string) (gcp.Page[*pubsubpb.Snapshot], error) {
		items, next, err := c.snaps.ListSnapshots(ctx, req, gcp.NoClientRetry, gcp.AnswerCap).InternalFetch(int(c.pageSize), token)
		return gcp.Page[*pubsubpb.Snapshot]{Items: items, Next: next}, err
	}, (*pubsubpb.Snapshot).GetName)
}

// listAll reads every page of a list call (what: the API method; the
// caller names the project), bounded by the source's page cap.
func listAll[T any](ctx context.Context, c *Collector, what string, fetch func(context.Context, string) (gcp.Page[T], error), name func(T) string) ([]T, error) {
	return gcp.Pages(ctx, c.retry, c.Timeout, &remote.Pager{What: what, Max: c.maxPages}, fetch, name)
}
