package airflow

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// The removal of an Airflow pool, connection or variable is its CLI
// delete, the name quoted, at its step; a DAG is still a DAG.
func TestAirflowObjectRemoval(t *testing.T) {
	tests := []struct {
		a          model.Artifact
		action     string
		step       model.Step
		shell, not string
	}{
		{model.Artifact{Kind: model.KindPool, System: "airflow", URI: "airflow://prod/pools/bf_7001_backfill"},
			remedy.DeletePool, model.StepRetired, "airflow pools delete bf_7001_backfill", ""},
		{model.Artifact{Kind: model.KindCredential, System: "airflow", URI: "airflow://prod/connections/bf_7001_scratch_pg"},
			remedy.DeleteConnection, model.StepAccessRevoked, "airflow connections delete bf_7001_scratch_pg", ""},
		{model.Artifact{Kind: model.KindVariable, System: "airflow", URI: "airflow://prod/variables/bf%207001%3B%20rm%20-rf"},
			remedy.DeleteVariable, model.StepRetired, "airflow variables delete 'bf 7001; rm -rf'", ""},
		{model.Artifact{Kind: model.KindVariable, System: "airflow", URI: "airflow://prod/variables/--help"},
			remedy.DeleteVariable, model.StepRetired, "airflow variables delete -- --help", ""},
	}
	for _, tt := range tests {
		var r remedy.Remedy
		airflowRemoval(&r, &tt.a)
		if len(r.Actions) != 1 {
			t.Fatalf("%s: %d actions", tt.a.URI, len(r.Actions))
		}
		got := r.Actions[0]
		if got.Name != tt.action || got.Step != tt.step || got.Shell != tt.shell || !got.Resolves || got.Reversible {
			t.Errorf("%s: %+v, want %s at %s: %s", tt.a.URI, got, tt.action, tt.step, tt.shell)
		}
	}
	// A URI of the wrong kind is not taken for another's object.
	var r remedy.Remedy
	airflowRemoval(&r, &model.Artifact{Kind: model.KindSchedulerJob, System: "airflow", URI: "airflow://prod/pools/x"})
	if len(r.Actions) != 0 {
		t.Errorf("a scheduler_job URI under pools: %+v", r.Actions)
	}
}

// A finding known only from a report (no artifact) still gets the delete:
// the kind comes from the URI.
func TestAirflowObjectFromFinding(t *testing.T) {
	f := model.Finding{RuleID: "TEST-REMOVE-AIRFLOW", ArtifactURI: "airflow://prod/connections/bf_7001_scratch_pg", Source: "prod"}
	a := remedy.InferArtifact(f)
	if a == nil || a.Kind != model.KindCredential {
		t.Fatalf("inferred %+v", a)
	}
	var r remedy.Remedy
	r, _ = remedy.BuildWith(remedy.Remove(model.StepRetired), model.Finding{}, remedy.Facts{Artifact: a})
	if len(r.Actions) != 1 || !strings.HasPrefix(r.Actions[0].Shell, "airflow connections delete ") {
		t.Errorf("remedy %+v", r)
	}
}
