package airflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// dirAPI reads a directory of API responses saved as files, laid out like
// the API paths, so an estate can be audited without a live Airflow:
//
//	dags.json                   GET /dags
//	dags/<dag_id>/details.json  GET /dags/<dag_id>/details   (optional)
//	dags/<dag_id>/tasks.json    GET /dags/<dag_id>/tasks     (optional)
//	dagRuns.json                GET /dags/~/dagRuns          (optional)
//	backfills.json              GET /backfills, all DAGs     (optional, Airflow 3)
//
// Either API version's shapes are accepted.
type dirAPI struct{ dir string }

func (d dirAPI) read(name string, out any) (bool, error) {
	b, err := os.ReadFile(filepath.Join(d.dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	return true, nil
}

func (d dirAPI) listDAGs(context.Context) ([]dagJSON, error) {
	var c dagCollection
	ok, err := d.read("dags.json", &c)
	if err == nil && !ok {
		err = fmt.Errorf("dags.json: missing in %s", d.dir)
	}
	return c.DAGs, err
}

func (d dirAPI) dagDetails(_ context.Context, dagID string) (*dagJSON, error) {
	if !safeName(dagID) {
		return nil, nil
	}
	var det dagJSON
	ok, err := d.read(filepath.Join("dags", dagID, "details.json"), &det)
	if err != nil || !ok {
		return nil, err
	}
	return &det, nil
}

func (d dirAPI) dagTasks(_ context.Context, dagID string) ([]taskJSON, error) {
	if !safeName(dagID) {
		return nil, nil
	}
	var tc taskCollection
	_, err := d.read(filepath.Join("dags", dagID, "tasks.json"), &tc)
	return tc.Tasks, err
}

func (d dirAPI) listRuns(_ context.Context, f runFilter) ([]dagRunJSON, error) {
	var c dagRunCollection
	if _, err := d.read("dagRuns.json", &c); err != nil {
		return nil, err
	}
	var kept []dagRunJSON
	for _, r := range c.DagRuns {
		if f.keep(r) {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

func (d dirAPI) listBackfills(_ context.Context, dagID string) ([]backfillJSON, bool, error) {
	var c backfillCollection
	ok, err := d.read("backfills.json", &c)
	if err != nil || !ok {
		return nil, ok, err
	}
	var out []backfillJSON
	for _, b := range c.Backfills {
		if b.DagID == dagID {
			out = append(out, b)
		}
	}
	return out, true, nil
}

// safeName keeps a DAG id from walking out of the export directory.
func safeName(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`)
}
