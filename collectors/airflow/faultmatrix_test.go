package airflow_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/airflow"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// The estate of an Airflow 3 deployment after BF-7001:
//   - bf_7001_replay, tagged backfill_id=bf-7001, still enabled after the
//     backfill's expiry (BF001); its backfill object 1 carries bf-7002 in
//     its conf, a backfill no plan describes (known only from Airflow);
//   - bf_7999_replay, a replay DAG of a backfill nobody planned (BF011),
//     with a run still queued (BF011 on the run: no built-in rule judges
//     an Airflow run of a planned backfill on its own, so the runs unit is
//     exercised through this one);
//   - daily_revenue, a scheduled DAG with catch-up on and a start date
//     long past (BF106), known as such only from its details.
var matrixData = map[string]any{
	"dags": []any{
		map[string]any{"dag_id": "bf_7001_replay", "is_paused": false, "is_stale": false, "owners": []string{"data-eng@example.com"},
			"tags": []any{map[string]string{"name": "backfill_id=bf-7001"}}, "timetable_summary": "@daily"},
		map[string]any{"dag_id": "bf_7999_replay", "is_paused": false, "is_stale": false, "owners": []string{"someone@example.com"},
			"tags": []any{}, "timetable_summary": nil},
		map[string]any{"dag_id": "daily_revenue", "is_paused": false, "is_stale": false, "owners": []string{"bob@example.com"},
			"tags": []any{}, "timetable_summary": "0 2 * * *"},
	},
	"details": map[string]any{
		"bf_7001_replay": map[string]any{"dag_id": "bf_7001_replay", "catchup": false, "start_date": "2025-10-01T00:00:00Z", "max_active_runs": 1},
		"bf_7999_replay": map[string]any{"dag_id": "bf_7999_replay", "catchup": false, "start_date": "2026-01-01T00:00:00Z", "max_active_runs": 1},
		"daily_revenue":  map[string]any{"dag_id": "daily_revenue", "catchup": true, "start_date": "2024-01-01T00:00:00Z", "max_active_runs": 1},
	},
	"tasks": map[string]any{
		"bf_7001_replay": []any{map[string]any{"task_id": "replay", "pool": "backfill", "depends_on_past": false}},
		"bf_7999_replay": []any{map[string]any{"task_id": "replay", "pool": "backfill", "depends_on_past": false}},
		"daily_revenue":  []any{map[string]any{"task_id": "load", "pool": "default_pool", "depends_on_past": false}},
	},
	"dag_runs": []any{
		map[string]any{"dag_id": "bf_7001_replay", "dag_run_id": "backfill__2025-10-01T00:00:00+00:00", "run_type": "backfill", "state": "success",
			"logical_date": "2025-10-01T00:00:00Z", "start_date": "2026-01-05T00:00:00Z", "end_date": "2026-01-05T01:00:00Z"},
		map[string]any{"dag_id": "bf_7999_replay", "dag_run_id": "manual__2026-05-30T00:00:00+00:00", "run_type": "manual", "state": "queued",
			"logical_date": "2026-05-30T00:00:00Z", "queued_at": "2026-05-30T00:00:00Z"},
	},
	"backfills": []any{
		map[string]any{"id": 1, "dag_id": "bf_7001_replay", "from_date": "2025-10-01T00:00:00Z", "to_date": "2025-12-31T00:00:00Z",
			"dag_run_conf": map[string]string{"backfill_id": "bf-7002"}, "is_paused": false, "reprocess_behavior": "none",
			"max_active_runs": 1, "created_at": "2026-01-05T00:00:00Z", "completed_at": "2026-01-10T00:00:00Z", "updated_at": "2026-01-10T00:00:00Z"},
	},
	// The replay's own pool, scratch connection and range variable, left
	// behind after BF-7001 (each tied by its name), beside untied ones.
	"pools": []any{
		map[string]any{"name": "default_pool", "slots": 128, "description": "Default pool", "occupied_slots": 0},
		map[string]any{"name": "bf_7001_backfill", "slots": 16, "description": "replay slots", "occupied_slots": 0},
	},
	"connections": []any{
		map[string]any{"connection_id": "bf_7001_scratch_pg", "conn_type": "postgres", "host": "db.example.com", "password": "matrix-pw-7001"},
	},
	"variables": []any{
		map[string]any{"key": "bf_7001_range", "value": "2025-10-01..2025-12-31", "description": nil},
	},
}

// matrixFake serves matrixData on Airflow 3's paths; broken answers 500 to
// a path, or to a path asked for one DAG ("/api/v2/backfills?dag_id=x").
type matrixFake struct {
	mu     sync.Mutex
	token  string
	broken map[string]bool
}

func (f *matrixFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	token, broken := f.token, f.broken[r.URL.Path] || f.broken[r.URL.Path+"?dag_id="+r.URL.Query().Get("dag_id")]
	f.mu.Unlock()
	answer := func(status int, body any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(body)
	}
	switch {
	case r.URL.Path == "/api/v2/version":
		answer(200, map[string]any{"version": "3.1.0"})
		return
	case r.Header.Get("Authorization") != "Bearer "+token:
		answer(401, map[string]any{"detail": "Not authenticated"})
		return
	case broken:
		answer(500, map[string]any{"detail": "injected failure"})
		return
	}
	p := strings.TrimPrefix(r.URL.Path, "/api/v2")
	q := r.URL.Query()
	list := func(key string, items []any) { answer(200, map[string]any{key: items, "total_entries": len(items)}) }
	switch {
	case p == "/dags":
		list("dags", matrixData["dags"].([]any))
	case strings.HasSuffix(p, "/dagRuns"):
		dag := strings.TrimSuffix(strings.TrimPrefix(p, "/dags/"), "/dagRuns")
		kept := []any{}
		for _, it := range matrixData["dag_runs"].([]any) {
			run := it.(map[string]any)
			if (dag == "~" || run["dag_id"] == dag) && (q.Get("run_type") == "" || run["run_type"] == q.Get("run_type")) &&
				(len(q["state"]) == 0 || slices.Contains(q["state"], run["state"].(string))) {
				kept = append(kept, run)
			}
		}
		list("dag_runs", kept)
	case strings.HasSuffix(p, "/details"):
		answer(200, matrixData["details"].(map[string]any)[path.Base(path.Dir(p))])
	case strings.HasSuffix(p, "/tasks"):
		list("tasks", matrixData["tasks"].(map[string]any)[path.Base(path.Dir(p))].([]any))
	case p == "/pools", p == "/connections", p == "/variables":
		key := strings.TrimPrefix(p, "/")
		list(key, matrixData[key].([]any))
	case p == "/backfills":
		kept := []any{}
		for _, it := range matrixData["backfills"].([]any) {
			if it.(map[string]any)["dag_id"] == q.Get("dag_id") {
				kept = append(kept, it)
			}
		}
		list("backfills", kept)
	default:
		answer(404, map[string]any{"detail": "Not Found"})
	}
}

func (f *matrixFake) breakPath(p string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broken[p] = true
}

// matrixEnv hands the source a selector and the wall clock the fixtures
// are dated from; no name, so URIs are built under the URL's host.
var matrixEnv = collectors.Env{Selector: correlate.MustSelector(), Now: time.Now}

func newAPICollector(t *testing.T, url string) collectors.Collector {
	t.Helper()
	t.Setenv("MATRIX_AIRFLOW_TOKEN", "matrix-token-7001")
	c := airflow.New()
	c.URL, c.APIVersion, c.TokenEnv = url, "2", "MATRIX_AIRFLOW_TOKEN"
	c.Timeout = 5 * time.Second
	c.Retry = remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := c.Init(matrixEnv); err != nil {
		t.Fatal(err)
	}
	return c
}

func apiUnit(kind, scope string, breakIt func(f *matrixFake, srv *httptest.Server)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		f := &matrixFake{token: "matrix-token-7001", broken: map[string]bool{}}
		srv := httptest.NewServer(f)
		t.Cleanup(srv.Close)
		return newAPICollector(t, srv.URL), func() { breakIt(f, srv) }
	}}
}

func fail(p string) func(*matrixFake, *httptest.Server) {
	return func(f *matrixFake, _ *httptest.Server) { f.breakPath(p) }
}

func TestFaultMatrixAPI(t *testing.T) {
	faultmatrix.Run(t, "airflow", []faultmatrix.Unit{
		apiUnit("source", "", func(f *matrixFake, _ *httptest.Server) { f.mu.Lock(); f.token = "revoked"; f.mu.Unlock() }),
		apiUnit("DAG listing", "dags", fail("/api/v2/dags")),
		apiUnit("DAG listing", "dags", fail("/api/v2/dags/~/dagRuns")),
		apiUnit("DAG", "dags/bf_7001_replay", fail("/api/v2/dags/bf_7001_replay/details")),
		apiUnit("DAG", "dags/bf_7001_replay", fail("/api/v2/dags/bf_7001_replay/tasks")),
		// Issue 11, reproduction 2: BF106 was resolved when one DAG's
		// details failed.
		apiUnit("DAG", "dags/daily_revenue", fail("/api/v2/dags/daily_revenue/details")),
		apiUnit("DAG runs", "dags/bf_7999_replay/runs", fail("/api/v2/dags/bf_7999_replay/dagRuns")),
		apiUnit("backfills", "dags/bf_7001_replay/backfills", fail("/api/v2/backfills?dag_id=bf_7001_replay")),
		apiUnit("pools", "pools", fail("/api/v2/pools")),
		apiUnit("connections", "connections", fail("/api/v2/connections")),
		apiUnit("variables", "variables", fail("/api/v2/variables")),
	})
}

// writeExport writes matrixData as an export directory, with the runs of
// bf_7999_replay in the DAG's own dagRuns.json.
func writeExport(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, v any) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		b, _ := json.Marshal(v)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	coll := func(key string, items []any) map[string]any {
		return map[string]any{key: items, "total_entries": len(items)}
	}
	write("dags.json", coll("dags", matrixData["dags"].([]any)))
	for id, d := range matrixData["details"].(map[string]any) {
		write("dags/"+id+"/details.json", d)
		write("dags/"+id+"/tasks.json", coll("tasks", matrixData["tasks"].(map[string]any)[id].([]any)))
	}
	runs := matrixData["dag_runs"].([]any)
	write("dagRuns.json", coll("dag_runs", runs[:1]))
	write("dags/bf_7999_replay/dagRuns.json", coll("dag_runs", runs[1:]))
	write("backfills.json", coll("backfills", matrixData["backfills"].([]any)))
	for _, key := range []string{"pools", "connections", "variables"} {
		write(key+".json", coll(key, matrixData[key].([]any)))
	}
	return dir
}

func exportUnit(kind, scope string, breakIt func(t *testing.T, dir string)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		dir := writeExport(t)
		c := airflow.New()
		c.ExportDir = dir
		if err := c.Init(matrixEnv); err != nil {
			t.Fatal(err)
		}
		return c, func() { breakIt(t, dir) }
	}}
}

func corrupt(name, body string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFaultMatrixExport(t *testing.T) {
	faultmatrix.Run(t, "airflow", []faultmatrix.Unit{
		exportUnit("source", "", func(t *testing.T, dir string) { os.RemoveAll(dir) }),
		exportUnit("DAG listing", "dags", corrupt("dags.json", "null")),
		exportUnit("DAG listing", "dags", corrupt("dags.json", "")),
		exportUnit("DAG listing", "dags", corrupt("dagRuns.json", `{"dag_runs": [`)),
		exportUnit("DAG", "dags/bf_7001_replay", corrupt("dags/bf_7001_replay/details.json", `{"dag_id": "bf_7001_replay", "catchup": tru`)),
		exportUnit("DAG", "dags/daily_revenue", corrupt("dags/daily_revenue/details.json", "{")),
		exportUnit("DAG runs", "dags/bf_7999_replay/runs", corrupt("dags/bf_7999_replay/dagRuns.json", "null")),
		exportUnit("backfills", "dags/bf_7001_replay/backfills", corrupt("backfills.json", "{}")),
		exportUnit("pools", "pools", corrupt("pools.json", `{"pools": null}`)),
		exportUnit("connections", "connections", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "connections.json")) }),
		exportUnit("variables", "variables", corrupt("variables.json", `{"variables": [`)),
	})
}
