package fix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/kubernetes"
	pubsubcollector "github.com/bfaudit/bfaudit/collectors/pubsub"
	"github.com/bfaudit/bfaudit/collectors/records"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/rules"
	"github.com/bfaudit/bfaudit/testkit/pubsubfake"
)

// planSource writes a plan for id, verified two months before now, and,
// when archived, its archived decision record; it returns the records
// collector reading them.
func planSource(t *testing.T, id string, archived bool, assets ...string) collectors.Instance {
	t.Helper()
	dir := t.TempDir()
	done := testNow.AddDate(0, -2, 0).Format("2006-01-02")
	plan := fmt.Sprintf("id: %s\npurpose: replay\ntrigger: outage\njob_id: j\nrange: {start: 2026-06-01, end: 2026-07-01}\nowner: alice@example.com\n"+
		"approver: carol@example.com\nstatus: verified\ntimeline: {completed_at: %s, verified_at: %s}\nexpiry: %s\nvalidation_query: select 1\n"+
		"cleanup_owner: alice@example.com\nstrategy: interval\nconcurrency: 1\npool: p\nwrite_mode: partition_overwrite\ntrial_interval: true\nassets_to_remove: [%s]\n",
		id, done, done, done, strings.Join(assets, ", "))
	mustWrite(t, filepath.Join(dir, "plans", "p.yaml"), plan)
	if archived {
		mustWrite(t, filepath.Join(dir, "records", "r.md"), fmt.Sprintf("---\nbackfill_id: %s\npurpose: replay\nrange: {start: 2026-06-01, end: 2026-07-01}\n"+
			"job_id: j\nvalidation_query: select 1\napproving_owner: carol@example.com\nfinal_data_location: x.y\ncheckpoint: {final_range: all, replay_id: r}\narchived_at: %s\n---\n", id, done))
	} else {
		mustWrite(t, filepath.Join(dir, "records", "README"), "")
	}
	r := &records.Records{Plans: []string{filepath.Join(dir, "plans")}, Records: []string{filepath.Join(dir, "records")}}
	return collectors.Instance{Name: "plans", Type: "records", Collector: r}
}

func mustWrite(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// auditOf collects from the instances and evaluates, as bfaudit fix does.
func auditOf(t *testing.T, sel *correlate.Selector, instances ...collectors.Instance) Inputs {
	t.Helper()
	est, err := audit.Collect(context.Background(), instances, sel, 2, testNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range est.Coverage {
		if c.Status != model.CoverageOK {
			t.Fatalf("source %s: %+v", c.Source, c)
		}
	}
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Evaluate(est, sel, eng, testNow)
}

// open lists the open findings of backfill id as rule id + artifact URI.
func open(in Inputs, id string) map[string]bool {
	out := map[string]bool{}
	for _, f := range in.Report.Findings {
		if model.SameID(f.BackfillID, id) && !f.Waived() {
			out[f.RuleID+" "+f.ArtifactURI] = true
		}
	}
	return out
}

func openStore(t *testing.T) *history.Store {
	t.Helper()
	s, err := history.Open(context.Background(), history.Config{Path: filepath.Join(t.TempDir(), "h.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func applyPlan(t *testing.T, in Inputs, id string, systems map[string]System, store *history.Store, allow ...string) []Result {
	t.Helper()
	allows := func(action string) bool { return remedy.Reversible(action) || slices.Contains(allow, action) }
	p, err := NewPlan(in, id, func(a remedy.Action) bool { return allows(a.Name) })
	if err != nil {
		t.Fatal(err)
	}
	ap := &Applier{Systems: systems, Allowed: allows, Store: store, Actor: "test", Now: func() time.Time { return testNow }}
	return ap.Apply(context.Background(), p)
}

func statusOf(results []Result, action string) string {
	for _, r := range results {
		if r.Item.Action != nil && r.Item.Action.Name == action {
			return r.Status
		}
	}
	return ""
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
	admin := newPubSub(ps)
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
	plans := planSource(t, "BF-7701", true, "pubsub://proj/subscriptions/bf-7701-retries", "pubsub://proj/topics/bf-7701-retry")
	in := auditOf(t, sel, plans, collectors.Instance{Name: "events", Type: "pubsub", Collector: ps})
	sub := "BF006 pubsub://proj/subscriptions/bf-7701-retries"
	if !open(in, "BF-7701")[sub] {
		t.Fatalf("before: %v", open(in, "BF-7701"))
	}
	store := openStore(t)
	res := applyPlan(t, in, "BF-7701", map[string]System{"events": admin}, store, remedy.DeleteSubscription)
	if got := statusOf(res, remedy.DeleteSubscription); got != StatusApplied {
		t.Fatalf("delete_subscription: %s (%+v)", got, res)
	}
	if got := statusOf(res, remedy.DeleteTopic); got != StatusNotAllowed {
		t.Errorf("delete_topic: %s, want not allowed", got)
	}
	after := open(auditOf(t, sel, plans, collectors.Instance{Name: "events", Type: "pubsub", Collector: newPubSubCollector(t, sel)}), "BF-7701")
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

func newPubSubCollector(t *testing.T, sel *correlate.Selector) *pubsubcollector.Collector {
	t.Helper()
	f, _ := collectors.Lookup("pubsub")
	c := f().(*pubsubcollector.Collector)
	c.Projects, c.Timeout = []string{"proj"}, 10*time.Second
	if err := c.Init(collectors.Env{Selector: sel}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Kubernetes through client-go's fake clientset: the enabled CronJob is
// suspended by default (pause_job is reversible); deleting it waits for
// the archived record, then goes once allowed; the finished Job goes too.
func TestApplyKubernetes(t *testing.T) {
	labels := map[string]string{"backfill-id": "BF-7702"}
	finished := metav1.NewTime(testNow.AddDate(0, -2, 0))
	cs := fake.NewClientset(
		&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "bf-7702-replay", Namespace: "jobs", Labels: labels, UID: "u1"},
			Spec: batchv1.CronJobSpec{Schedule: "0 * * * *"}},
		&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "bf-7702-replay-1", Namespace: "jobs", Labels: labels, UID: "u2"},
			Status: batchv1.JobStatus{CompletionTime: &finished, Succeeded: 1,
				Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: finished}}}},
		&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "jobs", UID: "u3"}, Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *"}},
	)
	sel := correlate.MustSelector()
	k := kubernetes.New()
	k.Client = cs
	if err := k.Init(collectors.Env{Source: "cluster", Selector: sel, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	cluster := collectors.Instance{Name: "cluster", Type: "kubernetes", Collector: k}
	sys := map[string]System{"cluster": newKubernetes(k)}
	assets := []string{"kubernetes://cluster/jobs/cronjobs/bf-7702-replay", "kubernetes://cluster/jobs/jobs/bf-7702-replay-1"}
	ctx := context.Background()

	in := auditOf(t, sel, planSource(t, "BF-7702", false, assets...), cluster)
	res := applyPlan(t, in, "BF-7702", sys, openStore(t))
	if got := statusOf(res, remedy.PauseJob); got != StatusApplied {
		t.Fatalf("pause_job: %s (%+v)", got, res)
	}
	if got := statusOf(res, remedy.DeleteJob); got != StatusWaits {
		t.Errorf("delete_job before the record is archived: %s, want waits", got)
	}
	cj, _ := cs.BatchV1().CronJobs("jobs").Get(ctx, "bf-7702-replay", metav1.GetOptions{})
	if cj.Spec.Suspend == nil || !*cj.Spec.Suspend {
		t.Errorf("cronjob not suspended: %+v", cj.Spec)
	}

	plans := planSource(t, "BF-7702", true, assets...)
	in = auditOf(t, sel, plans, cluster)
	res = applyPlan(t, in, "BF-7702", sys, openStore(t), remedy.DeleteJob)
	for _, r := range res {
		if r.Item.Action != nil && r.Status != StatusApplied {
			t.Errorf("%s %s: %s %s", r.Item.Action.Name, r.Item.ArtifactURI, r.Status, r.Reason)
		}
	}
	after := open(auditOf(t, sel, plans, cluster), "BF-7702")
	if len(after) != 0 {
		t.Errorf("after: %v", after)
	}
	if _, err := cs.BatchV1().CronJobs("jobs").Get(ctx, "nightly", metav1.GetOptions{}); err != nil {
		t.Errorf("the production CronJob went: %v", err)
	}
}

// stubSystem reads what it is told and records what it does.
type stubSystem struct {
	found bool
	acted []string
}

func (s *stubSystem) Read(context.Context, *model.Artifact, remedy.Action) (Observed, error) {
	return Observed{Found: s.found, State: map[string]string{}}, nil
}
func (s *stubSystem) Expected(*model.Artifact, remedy.Action) map[string]string { return nil }
func (s *stubSystem) Act(_ context.Context, a *model.Artifact, act remedy.Action) error {
	s.acted = append(s.acted, act.Name+" "+a.URI)
	return nil
}

// An artifact gone since the audit is cleanup done: skipped, and the
// later steps go on; one a system cannot act on fails and holds them.
func TestApplyGoneDoesNotHold(t *testing.T) {
	gone, mq := &stubSystem{found: false}, &stubSystem{found: true}
	res := applyPlan(t, inputs(t, estate(true)), "BF-1234", map[string]System{"pg": gone, "mq": mq, "scheduler": mq}, nil,
		remedy.RevokeGrant, remedy.DropTable, remedy.DeleteQueue, remedy.DeleteJob)
	if got := statusOf(res, remedy.RevokeGrant); got != StatusSkipped {
		t.Errorf("revoke_grant on a gone grant: %s", got)
	}
	if got := statusOf(res, remedy.DeleteQueue); got != StatusApplied {
		t.Errorf("delete_queue after a gone grant: %s, want applied", got)
	}
	res = applyPlan(t, inputs(t, estate(true)), "BF-1234", map[string]System{"mq": mq, "scheduler": mq}, nil,
		remedy.RevokeGrant, remedy.DropTable, remedy.DeleteQueue, remedy.DeleteJob)
	if got := statusOf(res, remedy.RevokeGrant); got != StatusFailed || !Failed(res) {
		t.Errorf("revoke_grant with no system for its source: %s", got)
	}
	if got := statusOf(res, remedy.DeleteQueue); got != StatusWaits {
		t.Errorf("delete_queue after a failed revoke: %s, want waits", got)
	}
}
