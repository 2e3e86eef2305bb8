package airflow

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/internal/safefile"
)

// dirAPI reads a directory of API responses saved as files, laid out like
// the API paths, so an estate can be audited without a live Airflow:
//
//	dags.json                   GET /dags
//	dags/<dag_id>/details.json  GET /dags/<dag_id>/details   (optional)
//	dags/<dag_id>/tasks.json    GET /dags/<dag_id>/tasks     (optional)
//	dags/<dag_id>/dagRuns.json  GET /dags/<dag_id>/dagRuns   (optional; else dagRuns.json)
//	dagRuns.json                GET /dags/~/dagRuns          (optional)
//	backfills.json              GET /backfills, all DAGs     (optional, Airflow 3)
//
// Either API version's shapes are accepted. The files shared by every DAG
// (dagRuns.json, backfills.json) are read once, so a collection reads each
// file at most once: linear in the export, whatever the number of DAGs.
// Files are read only when they are regular files (a named pipe would
// block, a symlink to /dev/zero would fill memory). A file that is present
// but empty, null or malformed is an error, never an empty answer.
type dirAPI struct {
	dir string

	runsOnce sync.Once
	runs     map[string][]dagRunJSON // by DAG id
	allRuns  []dagRunJSON
	runsErr  error

	bfOnce    sync.Once
	backfills map[string][]backfillJSON // by DAG id
	bfFound   bool
	bfErr     error
}

// maxSharedFileBytes caps dags.json, dagRuns.json and backfills.json: an
// export of a very large deployment, but not a runaway file.
const maxSharedFileBytes = 256 << 20

func newDirAPI(dir string) *dirAPI { return &dirAPI{dir: dir} }

// read decodes the file name (slash-separated, relative to the export)
// into out. found is false when the file does not exist.
func (d *dirAPI) read(name string, limit int64, out checker) (found bool, err error) {
	b, found, err := safefile.ReadSaved(d.dir, name, limit)
	if !found || err != nil {
		return found, err
	}
	if err := decodeAnswer(b, out); err != nil {
		return true, fmt.Errorf("%s: %w", name, err)
	}
	return true, nil
}

func (d *dirAPI) listDAGs(context.Context) ([]dagJSON, error) {
	var c dagCollection
	found, err := d.read("dags.json", maxSharedFileBytes, &c)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("dags.json: missing in %s", d.dir)
	}
	seen := make(map[string]bool, len(c.DAGs))
	for i, dag := range c.DAGs {
		switch {
		case dag.DagID == "":
			return nil, fmt.Errorf("dags.json: dags[%d] has no dag_id", i)
		case seen[dag.DagID]:
			return nil, fmt.Errorf("dags.json: dags[%d]: DAG %s listed twice", i, dag.DagID)
		}
		seen[dag.DagID] = true
	}
	return c.DAGs, nil
}

func (d *dirAPI) dagDetails(_ context.Context, dagID string) (*dagJSON, error) {
	if !safeName(dagID) {
		return nil, nil
	}
	var det dagJSON
	found, err := d.read(path.Join("dags", dagID, "details.json"), maxAnswerBytes, &det)
	if err != nil || !found {
		return nil, err
	}
	return &det, nil
}

func (d *dirAPI) dagTasks(_ context.Context, dagID string) ([]taskJSON, error) {
	if !safeName(dagID) {
		return nil, nil
	}
	var tc taskCollection
	_, err := d.read(path.Join("dags", dagID, "tasks.json"), maxAnswerBytes, &tc)
	return tc.Tasks, err
}

// listRuns reads one DAG's own dagRuns.json when the export has it, and
// dagRuns.json (read once for all DAGs) otherwise.
func (d *dirAPI) listRuns(_ context.Context, dagID string, f runFilter) ([]dagRunJSON, error) {
	if dagID != allDAGs && safeName(dagID) {
		var c dagRunCollection
		found, err := d.read(path.Join("dags", dagID, "dagRuns.json"), maxAnswerBytes, &c)
		if err != nil {
			return nil, err
		}
		if found {
			return filterRuns(c.DagRuns, dagID, f), nil
		}
	}
	d.runsOnce.Do(d.readRuns)
	if d.runsErr != nil {
		return nil, d.runsErr
	}
	if dagID == allDAGs {
		return filterRuns(d.allRuns, "", f), nil
	}
	return filterRuns(d.runs[dagID], "", f), nil
}

func (d *dirAPI) readRuns() {
	var c dagRunCollection
	found, err := d.read("dagRuns.json", maxSharedFileBytes, &c)
	if err != nil || !found {
		d.runsErr = err
		return
	}
	d.runs = map[string][]dagRunJSON{}
	for _, r := range c.DagRuns {
		d.runs[r.DagID] = append(d.runs[r.DagID], r)
	}
	d.allRuns = c.DagRuns
}

// filterRuns keeps the runs f selects (of dagID, when set).
func filterRuns(rs []dagRunJSON, dagID string, f runFilter) []dagRunJSON {
	var kept []dagRunJSON
	for _, r := range rs {
		if (dagID == "" || r.DagID == dagID) && f.keep(r) {
			kept = append(kept, r)
		}
	}
	return kept
}

// listBackfills reads backfills.json once and hands each DAG its own. A
// broken file is the same error for every DAG that asks, so each DAG's
// backfills unit says it did not answer.
func (d *dirAPI) listBackfills(_ context.Context, dagID string) ([]backfillJSON, bool, error) {
	d.bfOnce.Do(func() {
		var c backfillCollection
		d.bfFound, d.bfErr = d.read("backfills.json", maxSharedFileBytes, &c)
		d.backfills = map[string][]backfillJSON{}
		for _, b := range c.Backfills {
			d.backfills[b.DagID] = append(d.backfills[b.DagID], b)
		}
	})
	if d.bfErr != nil || !d.bfFound {
		return nil, d.bfFound, d.bfErr
	}
	return d.backfills[dagID], true, nil
}

// safeName keeps a DAG id from walking out of the export directory.
func safeName(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`)
}
