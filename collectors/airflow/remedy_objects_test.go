package airflow

import (
	"strings"
	"testing"
	"time"

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

// BF106's fix is in the DAG's file: a recent start and catch-up off, or,
// for a backfill's replay DAG, a start and an end at its plan's half-open
// range, so catching up replays the range and no further.
func TestCatchupTemplates(t *testing.T) {
	dag := model.Artifact{Kind: model.KindSchedulerJob, System: "airflow", URI: "airflow://prod/dags/bf_7001_replay", Name: "bf_7001_replay"}
	where, tpl := airflowCatchup(&dag, time.Time{}, time.Time{})
	if where != "the file of DAG bf_7001_replay" || !strings.Contains(tpl, `dag_id="bf_7001_replay"`) || !strings.Contains(tpl, "catchup=False") {
		t.Errorf("no range: %s\n%s", where, tpl)
	}
	start, end := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 8, 30, 0, 0, 0, 0, time.UTC)
	_, tpl = airflowCatchup(&dag, start, end)
	for _, want := range []string{`start_date=pendulum.datetime(2026, 6, 1, tz="UTC")`, `end_date=pendulum.datetime(2026, 8, 29, 23, 59, 59, tz="UTC")`, "(2026-08-30)", "catchup=True"} {
		if !strings.Contains(tpl, want) {
			t.Errorf("range template lacks %q:\n%s", want, tpl)
		}
	}
}
