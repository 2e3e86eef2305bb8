package kubernetes

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// Kubernetes through client-go's fake clientset: the enabled CronJob is
// suspended by default (pause_job is reversible); deleting it waits for
// the archived record, then goes once allowed; the finished Job goes too.
func TestApplyKubernetes(t *testing.T) {
	labels := map[string]string{"backfill-id": "BF-7702"}
	finished := metav1.NewTime(fixtest.Now.AddDate(0, -2, 0))
	cs := fake.NewClientset(
		&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "bf-7702-replay", Namespace: "jobs", Labels: labels, UID: "u1"},
			Spec: batchv1.CronJobSpec{Schedule: "0 * * * *"}},
		&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "bf-7702-replay-1", Namespace: "jobs", Labels: labels, UID: "u2"},
			Status: batchv1.JobStatus{CompletionTime: &finished, Succeeded: 1,
				Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: finished}}}},
		&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "jobs", UID: "u3"}, Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *"}},
	)
	sel := correlate.MustSelector()
	k := New()
	k.Client = cs
	if err := k.Init(collectors.Env{Source: "cluster", Selector: sel, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	cluster := collectors.Instance{Name: "cluster", Type: "kubernetes", Collector: k}
	sys := map[string]remedy.Actor{"cluster": newKubernetes(k)}
	assets := []string{"kubernetes://cluster/jobs/cronjobs/bf-7702-replay", "kubernetes://cluster/jobs/jobs/bf-7702-replay-1"}
	ctx := context.Background()

	in := fixtest.Audit(t, sel, fixtest.PlanSource(t, "BF-7702", false, assets...), cluster)
	res := fixtest.Apply(t, in, "BF-7702", sys, fixtest.OpenStore(t))
	if got := fixtest.StatusOf(res, remedy.PauseJob); got != fix.StatusApplied {
		t.Fatalf("pause_job: %s (%+v)", got, res)
	}
	if got := fixtest.StatusOf(res, remedy.DeleteJob); got != fix.StatusWaits {
		t.Errorf("delete_job before the record is archived: %s, want waits", got)
	}
	cj, _ := cs.BatchV1().CronJobs("jobs").Get(ctx, "bf-7702-replay", metav1.GetOptions{})
	if cj.Spec.Suspend == nil || !*cj.Spec.Suspend {
		t.Errorf("cronjob not suspended: %+v", cj.Spec)
	}

	plans := fixtest.PlanSource(t, "BF-7702", true, assets...)
	in = fixtest.Audit(t, sel, plans, cluster)
	res = fixtest.Apply(t, in, "BF-7702", sys, fixtest.OpenStore(t), remedy.DeleteJob)
	for _, r := range res {
		if r.Item.Action != nil && r.Status != fix.StatusApplied {
			t.Errorf("%s %s: %s %s", r.Item.Action.Name, r.Item.ArtifactURI, r.Status, r.Reason)
		}
	}
	after := fixtest.Open(fixtest.Audit(t, sel, plans, cluster), "BF-7702")
	if len(after) != 0 {
		t.Errorf("after: %v", after)
	}
	if _, err := cs.BatchV1().CronJobs("jobs").Get(ctx, "nightly", metav1.GetOptions{}); err != nil {
		t.Errorf("the production CronJob went: %v", err)
	}
}

// A flag of a FeatureFlag resource is not acted on: reading it again
// fails, so --apply reports it to be run by hand instead of reading the
// name as a Job's and taking "not found" for done.
func TestKubernetesFeatureFlagIsPrintOnly(t *testing.T) {
	s := &kubeSystem{}
	a := &model.Artifact{Kind: model.KindFeatureFlag, System: "kubernetes", URI: "kubernetes://c/batch/featureflags/ff#bf-1-mode"}
	_, err := s.Read(context.Background(), a, remedy.Action{Name: remedy.DeleteFlag})
	if err == nil || !strings.Contains(err.Error(), "does not act on featureflags") {
		t.Errorf("Read: %v", err)
	}
	if err := s.Act(context.Background(), a, remedy.Action{Name: remedy.DeleteFlag}); err == nil {
		t.Error("Act on a FeatureFlag's flag did not refuse")
	}
}
