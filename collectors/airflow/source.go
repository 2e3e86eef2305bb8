package airflow

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
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

// pageAll walks a limit/offset listing to its end under a remote.Pager
// of at most maxPages pages; what names the listing in its errors. fetch
// returns one page and the total_entries the server reported; key names
// an item. A page holding only items already read (a server that ignores
// offset) or an item without a key ends the walk with an error, as does
// reaching maxPages (a huge total_entries): a listing that does not end is
// an error at its unit, never a loop.
func pageAll[T any](what string, limit, maxPages int, key func(T) string, fetch func(offset, limit int) ([]T, int, error)) ([]T, error) {
	var all []T
	seen := map[string]bool{}
	pager := remote.Pager{What: what, Max: maxPages, MaxKey: "max_pages"}
	for offset := 0; ; {
		items, total, err := fetch(offset, limit)
		if err != nil {
			return all, err
		}
		keys := make([]string, len(items))
		fresh := 0
		for i, it := range items {
			keys[i] = key(it)
			if keys[i] == "" {
				return all, fmt.Errorf("%s: page at offset %d holds an entry without its id", what, offset)
			}
			if !seen[keys[i]] {
				seen[keys[i]] = true
				all = append(all, it)
				fresh++
			}
		}
		offset += len(items)
		last := len(items) == 0 || (total > 0 && offset >= total) || (total <= 0 && len(items) < limit)
		next := ""
		if !last || (len(items) > 0 && fresh == 0) {
			// A page of entries already read is never taken for the last
			// one: the server ignores offset, and its total would end the
			// listing short. The pager stops it.
			next = strconv.Itoa(offset)
		}
		if err := pager.Next(next, keys...); err != nil {
			return all, err
		}
		if next == "" {
			return all, nil
		}
	}
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
