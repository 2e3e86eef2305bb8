package pubsub

import (
	"context"
	"errors"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"github.com/bfaudit/bfaudit/collectors"
	gax "github.com/googleapis/gax-go/v2"
	"google.golang.org/api/iterator"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// noClientRetry turns off the client's own retries for list calls: they
// do not cover RESOURCE_EXHAUSTED (429), and two retry layers multiply
// waits. collectors.Retry retries each page instead.
var noClientRetry = gax.WithRetry(func() gax.Retryer { return nil })

func (c *Collector) listTopics(ctx context.Context, project string) ([]*pubsubpb.Topic, error) {
	return listAll[*pubsubpb.Topic](ctx, c, func() iterator.Pageable {
		return c.topics.ListTopics(ctx, &pubsubpb.ListTopicsRequest{Project: "projects/" + project}, noClientRetry)
	})
}

func (c *Collector) listSubscriptions(ctx context.Context, project string) ([]*pubsubpb.Subscription, error) {
	return listAll[*pubsubpb.Subscription](ctx, c, func() iterator.Pageable {
		return c.subs.ListSubscriptions(ctx, &pubsubpb.ListSubscriptionsRequest{Project: "projects/" + project}, noClientRetry)
	})
}

// listAll reads every page of a list call, retrying each page on its own
// (a fresh iterator from list resumes at the page token).
func listAll[T any](ctx context.Context, c *Collector, list func() iterator.Pageable) ([]T, error) {
	var all []T
	token := ""
	for {
		var page []T
		next := ""
		err := collectors.Retry(ctx, c.retry, func() error {
			page = page[:0]
			var err error
			next, err = iterator.NewPager(list(), int(c.pageSize), token).NextPage(&page)
			return retryable(err)
		})
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if next == "" {
			return all, nil
		}
		token = next
	}
}

// retryable marks quota (RESOURCE_EXHAUSTED, HTTP 429) and transient
// server answers for another try; permission and not-found answers are
// final.
func retryable(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	switch status.Code(err) {
	case codes.ResourceExhausted, codes.Unavailable, codes.Internal, codes.Aborted, codes.Unknown:
		return collectors.Retryable(err, retryDelay(err))
	}
	return err
}

// retryDelay reads the RetryInfo detail, gRPC's Retry-After, that Google
// APIs attach to quota errors; zero when there is none.
func retryDelay(err error) time.Duration {
	st, ok := status.FromError(err)
	if !ok {
		return 0
	}
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay() != nil {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}
