package airflow

import (
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("airflow", remedy.System{Examples: examples, Remove: airflowRemoval, Pause: airflowPause, Infer: airflowInfer, Catchup: airflowCatchup,
		Acts: remedy.ActsOn(func(a *Airflow) (remedy.Actor, error) {
			// A source that reads saved API answers has nothing to act
			// through.
			if a.ExportDir != "" {
				return nil, nil
			}
			return newAirflow(a), nil
		})})
}

// airflowCatchup sets a DAG's start, end and catch-up in its file: from
// start to end with catch-up on (a backfill's replay over its plan's
// range), or a recent start and catch-up off when no range is given.
func airflowCatchup(a *model.Artifact, start, end time.Time) (where, template string) {
	dag := a.Name
	if dag == "" {
		dag = "TODO"
	}
	where = "the file of DAG " + dag
	if start.IsZero() || end.IsZero() {
		return where, fmt.Sprintf("DAG(\n    dag_id=%q,\n    start_date=pendulum.datetime(2026, 1, 1, tz=\"UTC\"),  # TODO: a recent start date\n    catchup=False,\n    ...\n)", dag)
	}
	return where, fmt.Sprintf("DAG(\n    dag_id=%q,\n    start_date=%s,  # the plan's range start\n    end_date=%s,  # the last moment before the range ends (%s)\n    catchup=True,\n    ...\n)",
		dag, pendulumAt(start), pendulumAt(end.Add(-time.Second)), end.UTC().Format("2006-01-02"))
}

// pendulumAt writes t as the pendulum call a DAG file gives its dates in.
func pendulumAt(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return fmt.Sprintf("pendulum.datetime(%d, %d, %d, tz=\"UTC\")", t.Year(), t.Month(), t.Day())
	}
	return fmt.Sprintf("pendulum.datetime(%d, %d, %d, %d, %d, %d, tz=\"UTC\")", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second())
}

// airflowPause stops a replay job that should no longer run. It belongs
// to the first step: a range cannot be verified while the job may still
// write to it, and a pause deletes nothing and can be undone.
func airflowPause(r *remedy.Remedy, a *model.Artifact) {
	dag, ok := ParseAirflowDAG(a)
	if !ok {
		return
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.PauseJob, Step: model.StepVerified, Resolves: true,
		Summary: "pause DAG " + dag, Shell: remedy.Command([]string{"airflow", "dags", "pause"}, nil, dag)})
}

func airflowRemoval(r *remedy.Remedy, a *model.Artifact) {
	if airflowObjectRemoval(r, a) {
		return
	}
	dag, ok := ParseAirflowDAG(a)
	if !ok {
		return
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteJob, Step: model.StepRetired, Resolves: true,
		Summary: "delete DAG " + dag + " and its run history", Shell: remedy.Command([]string{"airflow", "dags", "delete"}, []string{"--yes"}, dag)})
	r.Notes = append(r.Notes, "remove the DAG's file from the dags folder first: the scheduler parses it again and the DAG comes back otherwise")
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"airflow-dag": {Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", State: model.StateEnabled,
		URI: "airflow://scheduler/dags/bf_1234_refund_replay", Name: "bf_1234_refund_replay"},
	"airflow-paused": {Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", State: model.StatePaused,
		URI: "airflow://scheduler/dags/bf_1234_refund_replay", Name: "bf_1234_refund_replay"},
	"airflow-pool": {Kind: model.KindPool, System: "airflow", Source: "scheduler", State: model.StateActive,
		URI: "airflow://scheduler/pools/bf_1234_backfill", Name: "bf_1234_backfill"},
	"airflow-variable": {Kind: model.KindVariable, System: "airflow", Source: "scheduler", State: model.StateActive,
		URI: "airflow://scheduler/variables/bf_1234_cutoff", Name: "bf_1234_cutoff"},
	"airflow-catchup": {Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", State: model.StateEnabled,
		URI: "airflow://scheduler/dags/daily_revenue", Name: "daily_revenue"},
}
