package gcs

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// A checkpoint folder gets gcloud storage rm --recursive on its gs://
// address, read back from the URI alone (a report holds findings), with
// the record note first and the hold note when objects are held.
func TestGCSRemoval(t *testing.T) {
	a := model.Artifact{URI: "gcs://state/flink-state/checkpoints/bf_1234_replay/"}
	inferGCS(&a)
	if a.Kind != model.KindCheckpoint || a.Name != "gs://flink-state/checkpoints/bf_1234_replay/" {
		t.Fatalf("inferred %+v", a)
	}
	var r remedy.Remedy
	gcsRemoval(&r, &a)
	if len(r.Actions) != 1 {
		t.Fatalf("actions %+v", r.Actions)
	}
	act := r.Actions[0]
	if act.Shell != "gcloud storage rm --recursive gs://flink-state/checkpoints/bf_1234_replay/" || act.Name != remedy.DeleteObjects ||
		act.Step != model.StepRetired || !act.Resolves {
		t.Errorf("action %+v", act)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "final processed range") {
		t.Errorf("notes %q", r.Notes)
	}

	held := model.Artifact{URI: "gcs://state/flink-state/savepoints/bf_1234%20final.tar", Attributes: model.TagsOf(map[string]string{model.AttrHolds: "true"})}
	r = remedy.Remedy{}
	gcsRemoval(&r, &held)
	if len(r.Actions) != 1 || r.Actions[0].Shell != "gcloud storage rm 'gs://flink-state/savepoints/bf_1234 final.tar'" {
		t.Errorf("single object: %+v", r.Actions)
	}
	if len(r.Notes) != 2 || !strings.Contains(r.Notes[1], "hold") {
		t.Errorf("a held object's notes %q", r.Notes)
	}

	for _, uri := range []string{"gcs://state/flink-state/", "gcs://state/flink-state", "gcs://state//x/"} {
		r = remedy.Remedy{}
		gcsRemoval(&r, &model.Artifact{URI: uri})
		if len(r.Actions) != 0 {
			t.Errorf("%s: %+v; want no command (never a whole bucket)", uri, r.Actions)
		}
	}
}
