package pubsub

import (
	"context"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/pubsubfake"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
)

// FaultFake lets faultmatrix_test.go (package pubsub_test) make pstest
// refuse one listing between two collections.
type FaultFake struct{ topics, subs, snaps *failingList }

// NewFaultFixture runs pstest (with snapshots) with project proj (topic
// bf-7001-retry and a subscription on it, both BF006, next to production
// ones; snapshot bf-7001-seek with no expiry, BF021) and project other
// (nothing of BF-7001's), so failing proj is not failing the whole source.
// The collector is configured and Init-ed.
func NewFaultFixture(t *testing.T) (*Collector, *FaultFake) {
	ff := &FaultFake{topics: &failingList{code: codes.Unavailable}, subs: &failingList{code: codes.PermissionDenied},
		snaps: &failingList{code: codes.Unavailable}}
	srv, err := pubsubfake.NewServer(
		pstest.ServerReactorOption{FuncName: "ListTopics", Reactor: ff.topics},
		pstest.ServerReactorOption{FuncName: "ListSubscriptions", Reactor: ff.subs},
		pstest.ServerReactorOption{FuncName: "ListSnapshots", Reactor: ff.snaps},
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	// BF021 flags a checkpoint with no expiry (or one past) once the
	// backfill is over its grace.
	srv.SetExpiry(time.Time{})
	c := &Collector{
		Projects: []string{"proj", "other"},
		Endpoint: srv.Addr,
		Timeout:  5 * time.Second,
		clientOptions: []option.ClientOption{
			option.WithoutAuthentication(),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
		},
		retry:    remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
		pageSize: 2,
	}
	if err := c.Init(collectors.Env{Selector: correlate.MustSelector()}); err != nil {
		t.Fatalf("Init: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	for _, tp := range []string{"projects/proj/topics/orders", "projects/proj/topics/bf-7001-retry", "projects/other/topics/audit"} {
		if _, err := c.client.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: tp}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*pubsubpb.Subscription{
		{Name: "projects/proj/subscriptions/orders-warehouse", Topic: "projects/proj/topics/orders"},
		{Name: "projects/proj/subscriptions/retry-worker", Topic: "projects/proj/topics/bf-7001-retry",
			PushConfig: &pubsubpb.PushConfig{PushEndpoint: "https://worker.example.com/push"}},
		{Name: "projects/other/subscriptions/audit-sink", Topic: "projects/other/topics/audit"},
	} {
		if _, err := c.client.SubscriptionAdminClient.CreateSubscription(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*pubsubpb.CreateSnapshotRequest{
		{Name: "projects/proj/snapshots/bf-7001-seek", Subscription: "projects/proj/subscriptions/orders-warehouse"},
		{Name: "projects/proj/snapshots/orders-nightly", Subscription: "projects/proj/subscriptions/orders-warehouse"},
	} {
		if _, err := c.client.SubscriptionAdminClient.CreateSnapshot(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return c, ff
}

// FailTopics makes ListTopics of project ("" for every project) fail.
func (ff *FaultFake) FailTopics(project string) { ff.topics.failFrom(project) }

// FailSubscriptions makes ListSubscriptions of project fail.
func (ff *FaultFake) FailSubscriptions(project string) { ff.subs.failFrom(project) }

// FailSnapshots makes ListSnapshots of project fail.
func (ff *FaultFake) FailSnapshots(project string) { ff.snaps.failFrom(project) }

func (f *failingList) failFrom(project string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.project, f.times = project, -1
}
