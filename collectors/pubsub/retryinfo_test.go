package pubsub

import (
	"context"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/pstest"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// quotaOnce answers the first list call RESOURCE_EXHAUSTED with the
// RetryInfo detail Google APIs use as gRPC's Retry-After.
type quotaOnce struct{ done bool }

func (q *quotaOnce) React(any) (bool, any, error) {
	if q.done {
		return false, nil, nil
	}
	q.done = true
	st, err := status.New(codes.ResourceExhausted, "Quota exceeded for quota metric 'Administrator API requests'").
		WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(7 * time.Second)})
	if err != nil {
		panic(err)
	}
	return true, nil, st.Err()
}

func TestRetryInfoHonoured(t *testing.T) {
	c := start(t, pstest.ServerReactorOption{FuncName: "ListTopics", Reactor: &quotaOnce{}})
	var waits []time.Duration
	c.retry.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 0 {
		t.Fatalf("errors %+v", sink.Errors)
	}
	if len(waits) != 1 || waits[0] != 7*time.Second {
		t.Fatalf("waits %v; want one of 7s, the server's RetryInfo", waits)
	}
}

// quotaForever answers RESOURCE_EXHAUSTED asking to wait an hour.
type quotaForever struct{}

func (quotaForever) React(any) (bool, any, error) {
	st, err := status.New(codes.ResourceExhausted, "Quota exceeded").
		WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Hour)})
	if err != nil {
		panic(err)
	}
	return true, nil, st.Err()
}

// A RetryInfo delay beyond the retry budget is not slept: the unit fails
// at once instead of holding the audit for an hour.
func TestRetryInfoBeyondBudgetNotWaited(t *testing.T) {
	c := start(t, pstest.ServerReactorOption{FuncName: "ListSubscriptions", Reactor: quotaForever{}})
	c.retry = remote.RetryPolicy{} // real sleeps, default budget
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(ctx, c, sink); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("Collect waited for the server's RetryInfo")
	}
	if len(sink.Errors) != 2 || !strings.Contains(sink.Errors[0].Error, "beyond the retry budget") {
		t.Fatalf("errors %+v; want each project's subscriptions refused at once", sink.Errors)
	}
}
