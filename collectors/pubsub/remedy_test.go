package pubsub

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// From a finding alone (a report holds no artifacts) a snapshot's URI says
// it is a snapshot and which: the removal deletes it, at the retired step,
// and resolves the finding.
func TestPubSubSnapshotFromTheURI(t *testing.T) {
	f := model.Finding{RuleID: "BF005", BackfillID: "BF-1234", ArtifactURI: "pubsub://shop-analytics/snapshots/bf-1234-seek"}
	a := remedy.InferArtifact(f)
	if a == nil || a.Kind != model.KindCheckpoint || a.Name != "bf-1234-seek" || a.Attr(model.AttrCheckpointType) != "snapshot" {
		t.Fatalf("inferred %+v", a)
	}
	r, ok := remedy.BuildWith(remedy.Remove(model.StepRetired), f, remedy.Facts{Artifact: a})
	if !ok || len(r.Actions) != 1 {
		t.Fatalf("remedy %+v", r)
	}
	act := r.Actions[0]
	if act.Name != remedy.DeleteSnapshot || act.Step != model.StepRetired || !act.Resolves || act.Reversible ||
		act.Shell != "gcloud pubsub snapshots delete --project=shop-analytics bf-1234-seek" {
		t.Errorf("action %+v", act)
	}
	// A topic's or subscription's URI is not taken for a snapshot.
	for _, uri := range []string{"pubsub://p/topics/bf-1-seek", "pubsub://p/subscriptions/bf-1-seek", "pubsub://p/snapshots/"} {
		o, ok := ParsePubSub(&model.Artifact{URI: uri})
		if ok && o.Snapshot {
			t.Errorf("%s parsed as a snapshot", uri)
		}
	}
}
