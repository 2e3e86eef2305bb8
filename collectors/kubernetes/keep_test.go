package kubernetes

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/bfaudit/bfaudit/model"
)

func TestKeepAnnotationsRead(t *testing.T) {
	kept := meta("batch", "bf-5-replay", map[string]string{"backfill-id": "BF-5"})
	kept.Annotations = map[string]string{KeepUntilAnnotation: "2027-01-31", KeepReasonAnnotation: "finance reads its output until the audit"}
	bad := meta("batch", "bf-6-replay", map[string]string{"backfill-id": "BF-6"})
	bad.Annotations = map[string]string{KeepUntilAnnotation: "soon"}
	cs := fake.NewClientset(
		&batchv1.CronJob{ObjectMeta: kept, Spec: batchv1.CronJobSpec{Schedule: "0 2 * * *"}},
		&batchv1.Job{ObjectMeta: bad},
	)
	c, _ := newCollector(t, cs, func(c *Kubernetes) { c.Namespaces = []string{"batch"} })
	sink := collect(t, c)
	a := sink.Artifact(base + "batch/cronjobs/bf-5-replay")
	if a == nil || a.Attr(model.AttrKeepUntil) != "2027-01-31" || a.Attr(model.AttrKeepReason) != "finance reads its output until the audit" {
		t.Fatalf("kept CronJob: %+v", a)
	}
	j := sink.Artifact(base + "batch/jobs/bf-6-replay")
	if j == nil || j.Attr(model.AttrKeepUntil) != "soon" || j.Attr(model.AttrKeepReason) != "" {
		t.Fatalf("a malformed keep date is carried as written for BF028: %+v", j)
	}

	// A keep annotation on a FeatureFlag resource keeps its flags.
	ff := strings.Replace(replayFlags, "annotations: {owner: payments@example.com}",
		`annotations: {owner: payments@example.com, bfaudit.io/keep-until: "2027-01-31", bfaudit.io/keep-reason: "guards the Q1 replay"}`, 1)
	fc, _ := flagCollector(t, true, []string{"batch"}, featureFlag(t, ff))
	flags := 0
	for _, a := range collect(t, fc).Artifacts {
		if a.Kind != model.KindFeatureFlag {
			continue
		}
		flags++
		if a.Attr(model.AttrKeepUntil) != "2027-01-31" || a.Attr(model.AttrKeepReason) != "guards the Q1 replay" {
			t.Errorf("flag %s: keep attributes %v", a.Name, a.Attributes)
		}
	}
	if flags == 0 {
		t.Error("no flag of the kept FeatureFlag reported")
	}
}
