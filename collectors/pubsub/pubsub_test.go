package pubsub

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/pubsubfake"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// failingList answers a list call with an error: always for one project,
// or the first n times for any project.
type failingList struct {
	mu      sync.Mutex
	project string
	code    codes.Code
	times   int // <0: always
}

func (f *failingList) React(req any) (bool, any, error) {
	var project string
	switch r := req.(type) {
	case *pubsubpb.ListTopicsRequest:
		project = r.Project
	case *pubsubpb.ListSubscriptionsRequest:
		project = r.Project
	case *pubsubpb.ListSnapshotsRequest:
		project = r.Project
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.project != "" && project != "projects/"+f.project {
		return false, nil, nil
	}
	if f.times == 0 {
		return false, nil, nil
	}
	if f.times > 0 {
		f.times--
	}
	return true, nil, status.Errorf(f.code, "test fake: %s", f.code)
}

// seekExpiry is when the fake's snapshots expire.
var seekExpiry = time.Date(2026, 7, 8, 9, 0, 0, 0, time.UTC)

// start runs pstest (with snapshots, testkit/pubsubfake) with the given
// reactors, creates the estate through the real admin clients, and returns
// a collector pointed at it.
func start(t *testing.T, reactors ...pstest.ServerReactorOption) *Collector {
	t.Helper()
	srv, err := pubsubfake.NewServer(reactors...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.SetExpiry(seekExpiry)
	c := &Collector{
		Projects: []string{"alpha", "beta"},
		Endpoint: srv.Addr,
		Timeout:  5 * time.Second,
		clientOptions: []option.ClientOption{
			option.WithoutAuthentication(),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
		},
		retry:    remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
		pageSize: 2, // several pages with a handful of objects
	}
	if err := c.Init(collectors.Env{Selector: correlate.MustSelector()}); err != nil {
		t.Fatalf("Init: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	seed(t, c)
	return c
}

func seed(t *testing.T, c *Collector) {
	ctx := context.Background()
	ta, sa := c.client.TopicAdminClient, c.client.SubscriptionAdminClient
	topics := []*pubsubpb.Topic{
		{Name: "projects/alpha/topics/orders"},
		{Name: "projects/alpha/topics/bf-1234-retry", MessageRetentionDuration: durationpb.New(48 * time.Hour)},
		{Name: "projects/alpha/topics/events", Labels: map[string]string{"team": "data"}},
		{Name: "projects/beta/topics/audit"},
	}
	for _, tp := range topics {
		if _, err := ta.CreateTopic(ctx, tp); err != nil {
			t.Fatalf("create topic %s: %v", tp.Name, err)
		}
	}
	subs := []*pubsubpb.Subscription{
		// A replay subscription still attached to a production topic.
		{Name: "projects/alpha/subscriptions/orders-replay", Topic: "projects/alpha/topics/orders",
			Labels: map[string]string{"backfill_id": "bf_1234", "owner": "data-eng",
				"bfaudit-keep-until": "2026-12-31", "bfaudit-keep-reason": "finance-replays_q4"},
			ExpirationPolicy: &pubsubpb.ExpirationPolicy{}},
		// The production subscription: not backfill machinery.
		{Name: "projects/alpha/subscriptions/orders-warehouse", Topic: "projects/alpha/topics/orders"},
		// On the backfill's topic, tied through it; pushes somewhere.
		{Name: "projects/alpha/subscriptions/retry-worker", Topic: "projects/alpha/topics/bf-1234-retry",
			ExpirationPolicy: &pubsubpb.ExpirationPolicy{Ttl: durationpb.New(24 * time.Hour)},
			PushConfig:       &pubsubpb.PushConfig{PushEndpoint: "https://worker.example.com/push?token=s3cret"}},
		// Detached already. pstest's DetachSubscription does not set the
		// flag, so the subscription is created detached.
		{Name: "projects/alpha/subscriptions/bf-2001-events", Topic: "projects/alpha/topics/events", Detached: true},
		{Name: "projects/beta/subscriptions/bf-3003-audit", Topic: "projects/beta/topics/audit"},
	}
	for _, s := range subs {
		if _, err := sa.CreateSubscription(ctx, s); err != nil {
			t.Fatalf("create subscription %s: %v", s.Name, err)
		}
	}
	snaps := []*pubsubpb.CreateSnapshotRequest{
		// The seek point of the replay, on the production topic: tied by
		// its name.
		{Name: "projects/alpha/snapshots/bf-1234-seek", Subscription: "projects/alpha/subscriptions/orders-replay",
			Labels: map[string]string{"owner": "data-eng"}},
		// The warehouse's own: not backfill machinery.
		{Name: "projects/alpha/snapshots/orders-nightly", Subscription: "projects/alpha/subscriptions/orders-warehouse"},
		// On the backfill's topic: tied through it.
		{Name: "projects/alpha/snapshots/retry-checkpoint", Subscription: "projects/alpha/subscriptions/retry-worker"},
		// Labelled, in the second project.
		{Name: "projects/beta/snapshots/audit-before", Subscription: "projects/beta/subscriptions/bf-3003-audit",
			Labels: map[string]string{"backfill_id": "bf_3003"}},
	}
	for _, s := range snaps {
		if _, err := sa.CreateSnapshot(ctx, s); err != nil {
			t.Fatalf("create snapshot %s: %v", s.Name, err)
		}
	}
}

func TestCollect(t *testing.T) {
	c := start(t)
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if len(sink.Errors) != 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	tests := []struct {
		name, uri   string
		kind        model.Kind
		id, how     string
		attrs       map[string]string
		absentAttrs []string
	}{
		{"topic named for a backfill", "pubsub://alpha/topics/bf-1234-retry", model.KindQueue, "bf-1234", "name",
			map[string]string{AttrMessageRetention: "48h0m0s"}, nil},
		{"labelled subscription still attached, never expires", "pubsub://alpha/subscriptions/orders-replay", model.KindSubscription, "bf_1234", "label",
			map[string]string{model.AttrDetached: "false", AttrExpirationTTL: "never", AttrDelivery: "pull", AttrTopic: "projects/alpha/topics/orders",
				// A keep label; label values hold no spaces, so - and _ stand for them.
				model.AttrKeepUntil: "2026-12-31", model.AttrKeepReason: "finance replays q4"},
			[]string{model.AttrConsumers}},
		{"subscription on the backfill's topic", "pubsub://alpha/subscriptions/retry-worker", model.KindSubscription, "bf-1234", "name",
			map[string]string{model.AttrDetached: "false", AttrExpirationTTL: "24h0m0s", AttrDelivery: "push",
				AttrPushEndpoint: "https://worker.example.com/push", model.AttrConsumers: "1"}, nil},
		{"detached subscription", "pubsub://alpha/subscriptions/bf-2001-events", model.KindSubscription, "bf-2001", "name",
			map[string]string{model.AttrDetached: "true"}, nil},
		{"second project", "pubsub://beta/subscriptions/bf-3003-audit", model.KindSubscription, "bf-3003", "name",
			map[string]string{model.AttrDetached: "false"}, nil},
		{"replay's seek snapshot, named for the backfill", "pubsub://alpha/snapshots/bf-1234-seek", model.KindCheckpoint, "bf-1234", "name",
			map[string]string{model.AttrCheckpointType: "snapshot", AttrTopic: "projects/alpha/topics/orders"}, nil},
		{"snapshot on the backfill's topic", "pubsub://alpha/snapshots/retry-checkpoint", model.KindCheckpoint, "bf-1234", "name",
			map[string]string{model.AttrCheckpointType: "snapshot", AttrTopic: "projects/alpha/topics/bf-1234-retry"}, nil},
		{"labelled snapshot", "pubsub://beta/snapshots/audit-before", model.KindCheckpoint, "bf_3003", "label",
			map[string]string{model.AttrCheckpointType: "snapshot"}, []string{model.AttrKeepUntil, model.AttrKeepReason}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := sink.Artifact(tt.uri)
			if a == nil {
				t.Fatalf("no artifact %s; have %v", tt.uri, uris(sink))
			}
			if a.Kind != tt.kind || a.BackfillID != tt.id || a.Correlation != tt.how || a.State != model.StateActive {
				t.Errorf("kind/id/how/state = %s/%s/%s/%s", a.Kind, a.BackfillID, a.Correlation, a.State)
			}
			for k, v := range tt.attrs {
				if a.Attr(k) != v {
					t.Errorf("%s = %q; want %q", k, a.Attr(k), v)
				}
			}
			for _, k := range tt.absentAttrs {
				if _, ok := a.Attributes.Lookup(k); ok {
					t.Errorf("%s should be unset, is %q", k, a.Attr(k))
				}
			}
			if a.Kind == model.KindCheckpoint && (!a.ExpiresAt.Time().Equal(seekExpiry) || a.Scope != strings.Split(tt.uri, "/")[2]+"/snapshots") {
				t.Errorf("snapshot expires %v, scope %q; want %v, its project's snapshots", a.ExpiresAt, a.Scope, seekExpiry)
			}
			if strings.Contains(a.Attr(AttrPushEndpoint), "s3cret") {
				t.Error("push endpoint token leaked")
			}
		})
	}
	if a := sink.Artifact("pubsub://alpha/subscriptions/orders-replay"); a != nil && a.Labels.Get("owner") != "data-eng" {
		t.Errorf("labels not kept: %v", a.Labels)
	}
	if a := sink.Artifact("pubsub://alpha/snapshots/bf-1234-seek"); a != nil && a.Labels.Get("owner") != "data-eng" {
		t.Errorf("snapshot labels not kept: %v", a.Labels)
	}
	for _, gone := range []string{"pubsub://alpha/topics/orders", "pubsub://alpha/subscriptions/orders-warehouse", "pubsub://alpha/topics/events",
		"pubsub://alpha/snapshots/orders-nightly"} {
		if sink.Artifact(gone) != nil {
			t.Errorf("production object %s reported as backfill machinery", gone)
		}
	}
	if len(sink.Artifacts) != len(tests) {
		t.Errorf("want %d artifacts, got %v", len(tests), uris(sink))
	}
}

func TestDeclaredAsset(t *testing.T) {
	c := start(t)
	c.sel = correlate.MustSelector()
	c.sel.Assets["pubsub://alpha/subscriptions/orders-warehouse"] = "BF-5005"
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatal(err)
	}
	a := sink.Artifact("pubsub://alpha/subscriptions/orders-warehouse")
	if a == nil || a.BackfillID != "BF-5005" || a.Correlation != "asset" {
		t.Fatalf("declared asset not tied: %+v", a)
	}
}

func TestPermissionDeniedDegradesOneProject(t *testing.T) {
	c := start(t, pstest.ServerReactorOption{FuncName: "ListTopics",
		Reactor: &failingList{project: "beta", code: codes.PermissionDenied, times: -1}})
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect should go on past one project: %v", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "beta" || !strings.Contains(sink.Errors[0].Error, "PermissionDenied") {
		t.Fatalf("errors = %+v; want one PermissionDenied for beta", sink.Errors)
	}
	if sink.Artifact("pubsub://alpha/subscriptions/orders-replay") == nil {
		t.Errorf("alpha not collected: %v", uris(sink))
	}
	if sink.Artifact("pubsub://beta/subscriptions/bf-3003-audit") != nil {
		t.Error("beta's subscriptions should not be listed after its topics were refused")
	}
}

func TestNoProjectAnsweredFails(t *testing.T) {
	c := start(t, pstest.ServerReactorOption{FuncName: "ListTopics",
		Reactor: &failingList{code: codes.PermissionDenied, times: -1}})
	err := collectors.Collect(context.Background(), c, collectors.NewTestSink())
	if err == nil || !strings.Contains(err.Error(), "no unit answered (alpha, beta)") {
		t.Fatalf("want failure, got %v", err)
	}
}

func TestRateLimitedListRetried(t *testing.T) {
	c := start(t, pstest.ServerReactorOption{FuncName: "ListSubscriptions",
		Reactor: &failingList{code: codes.ResourceExhausted, times: 2}})
	var waits int
	c.retry.Sleep = func(context.Context, time.Duration) error { waits++; return nil }
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 0 || waits != 2 {
		t.Fatalf("errors %+v, waits %d; want none and 2", sink.Errors, waits)
	}
	if sink.Artifact("pubsub://alpha/subscriptions/orders-replay") == nil {
		t.Errorf("subscriptions missing after retry: %v", uris(sink))
	}
}

func TestInitErrorsNameTheKey(t *testing.T) {
	for _, tt := range []struct {
		name     string
		projects []string
		want     string
	}{
		{"no projects", nil, "projects: missing"},
		{"resource name", []string{"projects/alpha"}, "projects[0]"},
		{"no timeout", []string{"alpha"}, "timeout: must be a positive duration"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := (&Collector{Projects: tt.projects}).Init(collectors.Env{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Init() = %v; want %q", err, tt.want)
			}
		})
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	// Init dials with Application Default Credentials; a dummy
	// authorized-user file lets it build the client without a network.
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c := inst.Collector.(*Collector)
	defer c.Close()
	if inst.Name != "gcp-pubsub" || len(c.Projects) != 1 || c.topics == nil {
		t.Errorf("decoded %q %+v", inst.Name, c)
	}
}

func uris(s *collectors.TestSink) []string {
	var out []string
	for _, a := range s.Artifacts {
		out = append(out, a.URI)
	}
	return out
}
