package airflow

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// api is what the collector reads from Airflow: the REST API of either
// version, or a directory of exported API responses.
type api interface {
	listDAGs(ctx context.Context) ([]dagJSON, error)
	// dagDetails returns nil, nil when the DAG has no details (a stale
	// DAG whose serialized form is gone answers 404).
	dagDetails(ctx context.Context, dagID string) (*dagJSON, error)
	dagTasks(ctx context.Context, dagID string) ([]taskJSON, error)
	// listRuns lists the runs of one DAG, or of every DAG when dagID is
	// allDAGs.
	listRuns(ctx context.Context, dagID string, f runFilter) ([]dagRunJSON, error)
	// listBackfills returns Airflow 3's backfill objects of one DAG; ok
	// is false when the source has none to give (Airflow 2).
	listBackfills(ctx context.Context, dagID string) (bs []backfillJSON, ok bool, err error)
}

// allDAGs is the DAG id Airflow's API reads as "every DAG".
const allDAGs = "~"

// runFilter selects DAG runs. Each API applies what it can on the server;
// keep applies all of it on our side too.
type runFilter struct {
	runType      string    // "" for any
	states       []string  // empty for any
	updatedAfter time.Time // zero for no bound (Airflow 2 only)
}

func (f runFilter) keep(r dagRunJSON) bool {
	if f.runType != "" && r.RunType != f.runType {
		return false
	}
	return len(f.states) == 0 || slices.Contains(f.states, r.State)
}

func dagKey(d dagJSON) string { return d.DagID }

func runKey(r dagRunJSON) string {
	if r.DagID == "" || r.DagRunID == "" {
		return ""
	}
	return r.DagID + "\x00" + r.DagRunID
}

func backfillKey(b backfillJSON) string {
	if b.ID <= 0 {
		return ""
	}
	return fmt.Sprint(b.ID)
}
