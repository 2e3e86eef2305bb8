package airflow

import (
	"context"
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
	listRuns(ctx context.Context, f runFilter) ([]dagRunJSON, error)
	// listBackfills returns Airflow 3's backfill objects of one DAG; ok
	// is false when the source has none to give (Airflow 2).
	listBackfills(ctx context.Context, dagID string) (bs []backfillJSON, ok bool, err error)
}

// runFilter selects DAG runs across all DAGs. Each API applies what it
// can on the server; keep applies all of it on our side too.
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

// pageAll walks a limit/offset listing to its end. fetch returns one
// page and the total_entries the server reported.
func pageAll[T any](limit int, fetch func(offset, limit int) ([]T, int, error)) ([]T, error) {
	var all []T
	for offset := 0; ; {
		items, total, err := fetch(offset, limit)
		if err != nil {
			return all, err
		}
		all = append(all, items...)
		offset += len(items)
		switch {
		case len(items) == 0:
			return all, nil
		case total > 0 && offset >= total:
			return all, nil
		case total == 0 && len(items) < limit:
			return all, nil
		}
	}
}
