package pubsub

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"

	"github.com/bfaudit/bfaudit/collectors"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	"github.com/bfaudit/bfaudit/testkit/pubsubfake"
)

// A replay's seek snapshot with no expiry (BF021) is read, deleted once
// delete_snapshot is allowed, and found resolved by the audit after; the
// warehouse's own snapshot stays. Read says not found once it is gone.
func TestApplyPubSubSnapshot(t *testing.T) {
	srv, err := pubsubfake.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.SetExpiry(time.Time{})
	t.Setenv("PUBSUB_EMULATOR_HOST", srv.Addr)
	sel := correlate.MustSelector()
	ps := newPubSubCollector(t, sel)
	ctx := context.Background()
	admin, _ := newPubSub(ps) // never fails: the client is built on first use
	t.Cleanup(func() { admin.Close() })
	client, err := admin.admin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: "projects/proj/topics/orders"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"orders-replay", "orders-warehouse"} {
		if _, err := client.SubscriptionAdminClient.CreateSubscription(ctx, &pubsubpb.Subscription{
			Name: "projects/proj/subscriptions/" + s, Topic: "projects/proj/topics/orders"}); err != nil {
			t.Fatal(err)
		}
	}
	for name, sub := range map[string]string{"bf-7703-seek": "orders-replay", "orders-nightly": "orders-warehouse"} {
		if _, err := client.SubscriptionAdminClient.CreateSnapshot(ctx, &pubsubpb.CreateSnapshotRequest{
			Name: "projects/proj/snapshots/" + name, Subscription: "projects/proj/subscriptions/" + sub}); err != nil {
			t.Fatal(err)
		}
	}
	uri := "pubsub://proj/snapshots/bf-7703-seek"
	plans := fixtest.PlanSource(t, "BF-7703", true, uri)
	in := fixtest.Audit(t, sel, plans, collectors.Instance{Name: "events", Type: "pubsub", Collector: ps})
	finding := "BF021 " + uri
	if !fixtest.Open(in, "BF-7703")[finding] {
		t.Fatalf("before: %v", fixtest.Open(in, "BF-7703"))
	}
	a := &model.Artifact{URI: uri}
	a.SetAttr(AttrTopic, "projects/proj/topics/orders")
	obs, err := admin.Read(ctx, a, remedy.Action{Name: remedy.DeleteSnapshot})
	if err != nil || !obs.Found || obs.State[AttrTopic] != "projects/proj/topics/orders" {
		t.Fatalf("Read before: %+v, %v", obs, err)
	}
	if exp := admin.Expected(a, remedy.Action{Name: remedy.DeleteSnapshot}); exp[AttrTopic] != obs.State[AttrTopic] {
		t.Errorf("expected %v; observed %v", exp, obs.State)
	}

	store := fixtest.OpenStore(t)
	if got := fixtest.StatusOf(fixtest.Apply(t, in, "BF-7703", map[string]remedy.Actor{"events": admin}, store), remedy.DeleteSnapshot); got != fix.StatusNotAllowed {
		t.Fatalf("delete_snapshot without allow: %s", got)
	}
	res := fixtest.Apply(t, in, "BF-7703", map[string]remedy.Actor{"events": admin}, store, remedy.DeleteSnapshot)
	if got := fixtest.StatusOf(res, remedy.DeleteSnapshot); got != fix.StatusApplied {
		t.Fatalf("delete_snapshot: %s (%+v)", got, res)
	}
	if got := srv.Snapshots(); !slices.Equal(got, []string{"projects/proj/snapshots/orders-nightly"}) {
		t.Errorf("snapshots left: %v; want only the warehouse's", got)
	}
	acts, _ := store.FixActions(ctx, "BF-7703")
	if len(acts) != 1 || acts[0].Result != history.FixApplied || !strings.Contains(acts[0].Before, `"topic":"projects/proj/topics/orders"`) {
		t.Errorf("recorded: %+v", acts)
	}
	obs, err = admin.Read(ctx, a, remedy.Action{Name: remedy.DeleteSnapshot})
	if err != nil || obs.Found {
		t.Errorf("Read after: %+v, %v; want not found", obs, err)
	}
	after := fixtest.Audit(t, sel, plans, collectors.Instance{Name: "events", Type: "pubsub", Collector: newPubSubCollector(t, sel)})
	if !after.Report.Summary.Complete || fixtest.Open(after, "BF-7703")[finding] {
		t.Errorf("after: complete=%v, open %v; want the snapshot's finding resolved", after.Report.Summary.Complete, fixtest.Open(after, "BF-7703"))
	}
}

// A snapshot deleted and made again from another topic since the audit is
// not the one the audit saw: it is left alone.
func TestApplyPubSubSnapshotChangedSinceAudit(t *testing.T) {
	srv, err := pubsubfake.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.SetExpiry(time.Time{})
	t.Setenv("PUBSUB_EMULATOR_HOST", srv.Addr)
	sel := correlate.MustSelector()
	ps := newPubSubCollector(t, sel)
	ctx := context.Background()
	admin, _ := newPubSub(ps) // never fails: the client is built on first use
	t.Cleanup(func() { admin.Close() })
	client, err := admin.admin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range []string{"orders", "events"} {
		if _, err := client.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: "projects/proj/topics/" + tp}); err != nil {
			t.Fatal(err)
		}
		if _, err := client.SubscriptionAdminClient.CreateSubscription(ctx, &pubsubpb.Subscription{
			Name: "projects/proj/subscriptions/" + tp + "-replay", Topic: "projects/proj/topics/" + tp}); err != nil {
			t.Fatal(err)
		}
	}
	snap := func(sub string) {
		t.Helper()
		if _, err := client.SubscriptionAdminClient.CreateSnapshot(ctx, &pubsubpb.CreateSnapshotRequest{
			Name: "projects/proj/snapshots/bf-7704-seek", Subscription: "projects/proj/subscriptions/" + sub}); err != nil {
			t.Fatal(err)
		}
	}
	snap("orders-replay")
	uri := "pubsub://proj/snapshots/bf-7704-seek"
	plans := fixtest.PlanSource(t, "BF-7704", true, uri)
	in := fixtest.Audit(t, sel, plans, collectors.Instance{Name: "events", Type: "pubsub", Collector: ps})
	if !fixtest.Open(in, "BF-7704")["BF021 "+uri] {
		t.Fatalf("before: %v", fixtest.Open(in, "BF-7704"))
	}
	if err := client.SubscriptionAdminClient.DeleteSnapshot(ctx, &pubsubpb.DeleteSnapshotRequest{Snapshot: "projects/proj/snapshots/bf-7704-seek"}); err != nil {
		t.Fatal(err)
	}
	snap("events-replay")
	res := fixtest.Apply(t, in, "BF-7704", map[string]remedy.Actor{"events": admin}, fixtest.OpenStore(t), remedy.DeleteSnapshot)
	if got := fixtest.StatusOf(res, remedy.DeleteSnapshot); got != fix.StatusSkipped {
		t.Fatalf("delete_snapshot: %s (%+v); want skipped", got, res)
	}
	if got := srv.Snapshots(); len(got) != 1 {
		t.Errorf("snapshots: %v; want the new one kept", got)
	}
}

// Pub/Sub through Google's pstest: the allowed subscription deletion is
// applied, the topic (delete_topic not allowed) stays, and an audit after
// finds the subscription's finding resolved.
func TestApplyPubSub(t *testing.T) {
	srv, err := pubsubfake.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	t.Setenv("PUBSUB_EMULATOR_HOST", srv.Addr)
	sel := correlate.MustSelector()
	ps := newPubSubCollector(t, sel)
	ctx := context.Background()
	admin, _ := newPubSub(ps) // never fails: the client is built on first use
	t.Cleanup(func() { admin.Close() })
	client, err := admin.admin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range []string{"projects/proj/topics/bf-7701-retry", "projects/proj/topics/orders"} {
		if _, err := client.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: tp}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*pubsubpb.Subscription{
		{Name: "projects/proj/subscriptions/bf-7701-retries", Topic: "projects/proj/topics/bf-7701-retry"},
		{Name: "projects/proj/subscriptions/orders-warehouse", Topic: "projects/proj/topics/orders"},
	} {
		if _, err := client.SubscriptionAdminClient.CreateSubscription(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	plans := fixtest.PlanSource(t, "BF-7701", true, "pubsub://proj/subscriptions/bf-7701-retries", "pubsub://proj/topics/bf-7701-retry")
	in := fixtest.Audit(t, sel, plans, collectors.Instance{Name: "events", Type: "pubsub", Collector: ps})
	sub := "BF006 pubsub://proj/subscriptions/bf-7701-retries"
	if !fixtest.Open(in, "BF-7701")[sub] {
		t.Fatalf("before: %v", fixtest.Open(in, "BF-7701"))
	}
	store := fixtest.OpenStore(t)
	res := fixtest.Apply(t, in, "BF-7701", map[string]remedy.Actor{"events": admin}, store, remedy.DeleteSubscription)
	if got := fixtest.StatusOf(res, remedy.DeleteSubscription); got != fix.StatusApplied {
		t.Fatalf("delete_subscription: %s (%+v)", got, res)
	}
	if got := fixtest.StatusOf(res, remedy.DeleteTopic); got != fix.StatusNotAllowed {
		t.Errorf("delete_topic: %s, want not allowed", got)
	}
	after := fixtest.Open(fixtest.Audit(t, sel, plans, collectors.Instance{Name: "events", Type: "pubsub", Collector: newPubSubCollector(t, sel)}), "BF-7701")
	if after[sub] || !after["BF006 pubsub://proj/topics/bf-7701-retry"] {
		t.Errorf("after: %v; want the subscription resolved and the topic still flagged", after)
	}
	if _, err := client.SubscriptionAdminClient.GetSubscription(ctx, &pubsubpb.GetSubscriptionRequest{Subscription: "projects/proj/subscriptions/orders-warehouse"}); err != nil {
		t.Errorf("the production subscription went: %v", err)
	}
	acts, _ := store.FixActions(ctx, "BF-7701")
	if len(acts) != 1 || acts[0].Result != history.FixApplied || !strings.Contains(acts[0].Before, `"topic":"projects/proj/topics/bf-7701-retry"`) {
		t.Errorf("recorded: %+v", acts)
	}
}

func newPubSubCollector(t *testing.T, sel *correlate.Selector) *Collector {
	t.Helper()
	f, _ := collectors.Lookup("pubsub")
	c := f().(*Collector)
	c.Projects, c.Timeout = []string{"proj"}, 10*time.Second
	if err := c.Init(collectors.Env{Selector: sel}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
