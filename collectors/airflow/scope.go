package airflow

import (
	"strconv"

	"github.com/bfaudit/bfaudit/model"
)

// Units of an Airflow source, as scope paths. The DAG listing is "dags";
// everything the source reports lies under it, so a failed listing (or
// the run listing across DAGs) leaves nothing answered. Below it, each
// DAG is its own unit, with its runs and its backfill objects under it:
//
//	dags                          GET /dags, GET /dags/~/dagRuns
//	dags/<dag_id>                 the DAG: details, tasks
//	dags/<dag_id>/runs            its runs (GET /dags/<dag_id>/dagRuns)
//	dags/<dag_id>/backfills       its Airflow 3 backfill objects
//	dags/<dag_id>/backfills/<id>  one backfill object (a Backfill's Source.Path)
const scopeDAGs = "dags"

func dagScope(dagID string) string { return model.JoinScope(scopeDAGs, dagID) }

func runsScope(dagID string) string { return model.JoinScope(scopeDAGs, dagID, "runs") }

func backfillsScope(dagID string) string { return model.JoinScope(scopeDAGs, dagID, "backfills") }

func backfillScope(dagID string, id int) string {
	return model.JoinScope(scopeDAGs, dagID, "backfills", strconv.Itoa(id))
}
