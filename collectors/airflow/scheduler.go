package airflow

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// schedulerView is Airflow's own account of one backfill object, kept on
// the backfill beside what its plan declares, so rules can compare them
// (a plan saying one run at a time, a scheduler running sixteen).
func (c *Airflow) schedulerView(b backfillJSON, info *dagInfo) model.SchedulerView {
	done := b.CompletedAt != nil
	v := model.SchedulerView{
		Source:            model.Location{Source: c.env.Source, Path: backfillScope(info.dag.DagID, b.ID)},
		Object:            fmt.Sprintf("airflow backfill %d of DAG %s", b.ID, b.DagID),
		MaxActiveRuns:     b.MaxActiveRuns,
		ReprocessBehavior: b.ReprocessBehavior,
		Running:           !done && !b.IsPaused,
		// A finished backfill is not paused, whatever its flag still says.
		Paused: !done && b.IsPaused,
	}
	// Pools and depends_on_past come from the DAG's tasks: unknown (empty,
	// nil) when they could not be read.
	if info.tasksKnown {
		v.Pool = strings.Join(info.pools, ",")
		dop := info.dependsOn
		v.DependsOnPast = &dop
	}
	return v
}

// unplannedID is the id of a backfill object that carries no backfill id
// (none in its dag_run_conf, none on its DAG): a backfill started without
// a plan, e.g. `airflow backfill create --dag-id orders_daily`.
//
//	airflow:<source>:<dag_id>:<backfill id>   e.g. airflow:airflow-prod:orders_daily:12
//
// It is stable across runs (Airflow numbers backfills once, across all
// DAGs of a deployment, so <source> and the number alone are unique; the
// DAG id is there for people) and cannot be a real id: the selector's
// name patterns never yield a ':' and nobody labels a backfill so.
// model.ParseID folds it like any id (AIRFLOW:AIRFLOW-PROD:ORDERS-DAILY:12),
// so correlate keeps it as a backfill of its own that no plan or record
// describes.
func (c *Airflow) unplannedID(b backfillJSON) string {
	return fmt.Sprintf("airflow:%s:%s:%d", c.authority(), b.DagID, b.ID)
}

func unplannedNote(b backfillJSON) string {
	return fmt.Sprintf("no plan id was found for airflow backfill %d of DAG %s (none in its dag_run_conf, none on the DAG): it was started without a plan", b.ID, b.DagID)
}
