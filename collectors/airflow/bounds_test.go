package airflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// Issue 12, point 3: timeout 0 or negative meant "no deadline": a hang.
func TestInitRejectsUnboundedSettings(t *testing.T) {
	tests := []struct {
		name string
		set  func(c *Airflow)
		want string
	}{
		{"timeout 0", func(c *Airflow) { c.Timeout = 0 }, "timeout: must be a positive duration"},
		{"negative timeout", func(c *Airflow) { c.Timeout = -time.Second }, "timeout: must be a positive duration"},
		{"huge timeout", func(c *Airflow) { c.Timeout = 48 * time.Hour }, "timeout:"},
		{"budget 0", func(c *Airflow) { c.Budget = 0 }, "budget:"},
		{"max_pages 0", func(c *Airflow) { c.MaxPages = 0 }, "max_pages:"},
		{"concurrency 0", func(c *Airflow) { c.Concurrency = 0 }, "concurrency:"},
		{"concurrency 10000", func(c *Airflow) { c.Concurrency = 10000 }, "concurrency:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			c.URL = "https://airflow.example.com"
			tt.set(c)
			if err := c.Init(env("")); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Init() = %v, want an error with %q", err, tt.want)
			}
		})
	}
	c := New()
	c.URL = "https://airflow.example.com"
	c.HTTPClient = &http.Client{} // no deadline of its own
	c.Timeout = 2 * time.Second
	if err := c.Init(env("")); err != nil || c.HTTPClient.Timeout != 2*time.Second {
		t.Errorf("a client handed in without a timeout keeps none: %v, %s", err, c.HTTPClient.Timeout)
	}
}

// stallingDetails serves n scheduled DAGs whose details never answer, and
// counts how many detail calls are in flight at once.
type stallingDetails struct {
	n           int
	mu          sync.Mutex
	inFlight    int
	maxInFlight int
}

// RoundTrip counts detail calls in flight on the client's side: the server
// may still be winding down a call the client has already given up on, so
// only the client knows how many calls it has open.
func (s *stallingDetails) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/details") {
		s.mu.Lock()
		s.inFlight++
		s.maxInFlight = max(s.maxInFlight, s.inFlight)
		s.mu.Unlock()
		defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()
	}
	return http.DefaultTransport.RoundTrip(r)
}

func (s *stallingDetails) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/api/v2/dags":
		var dags []map[string]any
		for i := range s.n {
			dags = append(dags, map[string]any{"dag_id": fmt.Sprintf("dag_%02d", i), "timetable_summary": "@daily", "is_stale": false})
		}
		writeJSON(w, http.StatusOK, map[string]any{"dags": dags, "total_entries": s.n})
	case r.URL.Path == "/api/v2/dags/~/dagRuns":
		writeJSON(w, http.StatusOK, map[string]any{"dag_runs": []any{}, "total_entries": 0})
	case strings.HasSuffix(r.URL.Path, "/details"):
		hostile.Stall().ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// Issue 12, point 3: a server that stalls on per-DAG calls made time grow
// with DAGs (40 DAGs at timeout 1s: 226 s). Calls run `concurrency` at a
// time within the source's budget; when it runs out, every DAG not read
// is an error at its own unit, and Collect returns.
func TestBudgetBoundsPerDAGCalls(t *testing.T) {
	h := &stallingDetails{n: 40}
	srv := hostile.Server(t, h)
	c := New()
	c.URL, c.APIVersion = srv.URL, "2"
	c.Timeout, c.Budget, c.Concurrency = time.Second, 3*time.Second, 4
	c.Pools, c.Connections, c.Variables = false, false, false // this server serves DAGs only
	c.HTTPClient = &http.Client{Timeout: time.Second, Transport: h}
	if err := c.Init(env("")); err != nil {
		t.Fatal(err)
	}
	sink := collectWithin(t, c, 30*time.Second)
	byScope := map[string]string{}
	for _, e := range sink.Errors {
		byScope[e.Scope] = e.Error
	}
	for i := range h.n {
		scope := fmt.Sprintf("dags/dag_%02d", i)
		if byScope[scope] == "" {
			t.Errorf("no error at %s", scope)
		}
	}
	if len(byScope) != h.n {
		t.Errorf("errors at %d units, want the %d DAGs: %v", len(byScope), h.n, byScope)
	}
	if msg := byScope["dags/dag_39"]; !strings.Contains(msg, "budget") {
		t.Errorf("a DAG left unread does not say the budget ran out: %s", msg)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.maxInFlight > c.Concurrency {
		t.Errorf("%d detail calls at once, concurrency is %d", h.maxInFlight, c.Concurrency)
	}
}

func TestPageAllBounds(t *testing.T) {
	items := func(from, n int) []dagJSON {
		var out []dagJSON
		for i := range n {
			out = append(out, dagJSON{DagID: fmt.Sprint(from + i)})
		}
		return out
	}
	tests := []struct {
		name     string
		fetch    func(offset, limit int) ([]dagJSON, int, error)
		want     int    // items read
		wantErr  string // "" for none
		maxCalls int
	}{
		{"to total_entries", func(o, l int) ([]dagJSON, int, error) { return items(o, min(l, 25-o)), 25, nil }, 25, "", 3},
		{"server caps lower than asked", func(o, l int) ([]dagJSON, int, error) { return items(o, min(3, 7-o)), 7, nil }, 7, "", 3},
		{"no total, short page ends", func(o, l int) ([]dagJSON, int, error) { return items(o, min(l, 15-o)), 0, nil }, 15, "", 2},
		{"huge total, fresh items forever", func(o, l int) ([]dagJSON, int, error) { return items(o, l), 1 << 40, nil }, 50, "still paging after 5 pages (the most read from one listing; raise max_pages", 5},
		{"offset ignored", func(o, l int) ([]dagJSON, int, error) { return items(0, l), 1 << 20, nil }, 10, "GET /dags: page 2 repeats items already listed", 2},
		{"offset ignored, total reached on the repeat", func(o, l int) ([]dagJSON, int, error) { return items(0, l), 15, nil }, 10, "page 2 repeats items", 2},
		{"entry without id", func(o, l int) ([]dagJSON, int, error) { return []dagJSON{{}}, 1, nil }, 0, "without its id", 1},
		{"error on page 2", func(o, l int) ([]dagJSON, int, error) {
			if o > 0 {
				return nil, 0, errors.New("HTTP 500")
			}
			return items(0, l), 100, nil
		}, 10, "HTTP 500", 2},
	}
	for _, tt := range tests {
		for _, par := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s, %d at a time", tt.name, par), func(t *testing.T) {
				var mu sync.Mutex
				calls := 0
				got, err := pageAll(context.Background(), pageSpec[dagJSON]{what: "GET /dags", limit: 10, maxPages: 5, par: par, key: dagKey,
					fetch: func(_ context.Context, o, l int) ([]dagJSON, int, error) {
						mu.Lock()
						calls++
						mu.Unlock()
						return tt.fetch(o, l)
					}})
				if len(got) != tt.want {
					t.Errorf("read %d items, want %d", len(got), tt.want)
				}
				if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
				if calls > tt.maxCalls {
					t.Errorf("%d calls, want at most %d", calls, tt.maxCalls)
				}
			})
		}
	}
}

// writeBigExport writes an export of n backfill DAGs, each with one backfill
// run and one backfill object, in the shared files.
func writeBigExport(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	var dags, runs, bfs []string
	for i := range n {
		id := fmt.Sprintf("bf_%d_replay", 10000+i)
		dags = append(dags, fmt.Sprintf(`{"dag_id":%q,"is_paused":true,"tags":[{"name":"backfill_id=BF-%d"}]}`, id, 10000+i))
		runs = append(runs, fmt.Sprintf(`{"dag_id":%q,"dag_run_id":"backfill__2026-01-01","run_type":"backfill","state":"success","logical_date":"2026-01-01T00:00:00Z"}`, id))
		bfs = append(bfs, fmt.Sprintf(`{"id":%d,"dag_id":%q,"from_date":"2026-01-01T00:00:00Z","to_date":"2026-01-02T00:00:00Z","created_at":"2026-01-03T00:00:00Z","updated_at":"2026-01-03T00:00:00Z","completed_at":"2026-01-03T00:00:00Z","max_active_runs":1}`, i+1, id))
	}
	for name, body := range map[string]string{
		"dags.json":        `{"dags":[` + strings.Join(dags, ",") + fmt.Sprintf(`],"total_entries":%d}`, n),
		"dagRuns.json":     `{"dag_runs":[` + strings.Join(runs, ",") + fmt.Sprintf(`],"total_entries":%d}`, n),
		"backfills.json":   `{"backfills":[` + strings.Join(bfs, ",") + fmt.Sprintf(`],"total_entries":%d}`, n),
		"pools.json":       `{"pools":[],"total_entries":0}`,
		"connections.json": `{"connections":[],"total_entries":0}`,
		"variables.json":   `{"variables":[],"total_entries":0}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Issue 12, point 3: export mode re-read backfills.json for every DAG
// (quadratic: 2,000 DAGs did not finish in 300 s). The shared files are
// read once: after the first DAG's backfills, the file can go and every
// other DAG still gets its own.
func TestExportReadsSharedFilesOnce(t *testing.T) {
	dir := writeBigExport(t, 2000)
	d := newDirAPI(dir)
	ctx := context.Background()
	if bs, ok, err := d.listBackfills(ctx, "bf_10000_replay"); err != nil || !ok || len(bs) != 1 {
		t.Fatalf("first DAG: %v %v %v", bs, ok, err)
	}
	if _, err := d.listRuns(ctx, "bf_10000_replay", runFilter{}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "backfills.json"))
	os.Remove(filepath.Join(dir, "dagRuns.json"))
	for i := 1; i < 2000; i++ {
		id := fmt.Sprintf("bf_%d_replay", 10000+i)
		bs, ok, err := d.listBackfills(ctx, id)
		if err != nil || !ok || len(bs) != 1 || bs[0].DagID != id {
			t.Fatalf("%s: backfills %v %v %v (backfills.json read again?)", id, bs, ok, err)
		}
		rs, err := d.listRuns(ctx, id, runFilter{})
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: runs %v %v (dagRuns.json read again?)", id, rs, err)
		}
	}
}

// The whole collection of a 2,000-DAG export (quadratic before).
func TestExport2000DAGs(t *testing.T) {
	c := exportCollector(t, writeBigExport(t, 2000))
	sink := collectWithin(t, c, 60*time.Second)
	if len(sink.Errors) != 0 || len(sink.Backfills) != 2000 || len(sink.Artifacts) != 4000 {
		t.Errorf("errors %d, backfills %d, artifacts %d", len(sink.Errors), len(sink.Backfills), len(sink.Artifacts))
	}
}

func BenchmarkExport(b *testing.B) {
	for _, n := range []int{500, 2000} {
		b.Run(fmt.Sprint(n, " DAGs"), func(b *testing.B) {
			dir := writeBigExport(b, n)
			c := New()
			c.ExportDir = dir
			if err := c.Init(env("")); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := collectors.Collect(context.Background(), c, discard{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// discard is a sink that keeps nothing, for benchmarks.
type discard struct{}

func (discard) AddBackfill(model.Backfill)       {}
func (discard) AddArtifact(model.Artifact)       {}
func (discard) AddRecord(model.DecisionRecord)   {}
func (discard) AddEdge(model.Edge)               {}
func (discard) AddBuild(model.Build)             {}
func (discard) AddError(scope string, err error) {}
func (discard) AddRead(string, string, int, int) {}
