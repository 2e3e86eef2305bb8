package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/airflow"
	"github.com/bfaudit/bfaudit/correlate"
)

// The Airflow collector at scale, against a fake Airflow that answers
// every call after a fixed latency. The floor of a collection is its
// calls, concurrency at a time: bound = calls / concurrency × latency.
// BenchmarkAirflowAtScale prints the measured time over that bound and the
// peak heap in use; TestAirflowAtScaleSmoke runs small sizes in `make
// test` and checks the calls (no page read twice, the run listing no
// longer than its entries need, never more than concurrency at once).

// fakeAirflowScale generates an estate of dags DAGs, every tenth one a
// backfill DAG (tagged backfill_id), all scheduled daily. On Airflow 2
// (version "1") each DAG has runs runs in the lookback, ordered by id as
// Airflow lists them, and the backfill DAGs' every 30th run is a backfill;
// on Airflow 3 only the backfill runs exist (the server filters by
// run_type), one per backfill DAG, with one backfill object each. Pages
// are capped at 100, like Airflow's maximum_page_limit.
type fakeAirflowScale struct {
	version string
	dags    int
	runs    int
	latency time.Duration

	calls, in, maxIn atomic.Int64
	mu               sync.Mutex
	byPath           map[string]int
}

const fakePageCap = 100

func (f *fakeAirflowScale) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	in := f.in.Add(1)
	defer f.in.Add(-1)
	for {
		m := f.maxIn.Load()
		if in <= m || f.maxIn.CompareAndSwap(m, in) {
			break
		}
	}
	time.Sleep(f.latency)
	prefix := "/api/v" + map[string]string{"1": "1", "2": "2"}[f.version]
	path := strings.TrimPrefix(r.URL.Path, prefix)
	kind := path
	if strings.HasPrefix(path, "/dags/") && path != "/dags/~/dagRuns" {
		kind = "/dags/{id}/" + path[strings.LastIndex(path, "/")+1:]
	}
	f.mu.Lock()
	f.byPath[kind]++
	f.mu.Unlock()
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	limit = min(max(limit, 1), fakePageCap)
	offset, _ := strconv.Atoi(q.Get("offset"))
	w.Header().Set("Content-Type", "application/json")
	var b strings.Builder
	switch {
	case path == "/dags":
		f.dagPage(&b, offset, limit)
	case path == "/dags/~/dagRuns":
		f.runPage(&b, q.Get("run_type"), offset, limit)
	case strings.HasSuffix(path, "/dagRuns"): // active runs of one DAG: none
		b.WriteString(`{"dag_runs":[],"total_entries":0}`)
	case strings.HasSuffix(path, "/details"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/dags/"), "/details")
		fmt.Fprintf(&b, `{"dag_id":%q,"catchup":false,"start_date":"2026-01-01T00:00:00Z","max_active_runs":1,"is_paused":false,"timetable_summary":"@daily","tags":[]}`, id)
	case strings.HasSuffix(path, "/tasks"):
		b.WriteString(`{"tasks":[{"task_id":"t","pool":"default_pool","depends_on_past":false}],"total_entries":1}`)
	case path == "/backfills":
		id := q.Get("dag_id")
		n, _ := strconv.Atoi(strings.TrimPrefix(id, "dag_"))
		fmt.Fprintf(&b, `{"backfills":[{"id":%d,"dag_id":%q,"from_date":"2026-01-01T00:00:00Z","to_date":"2026-01-02T00:00:00Z","dag_run_conf":{},"is_paused":false,"reprocess_behavior":"none","max_active_runs":1,"created_at":"2026-01-03T00:00:00Z","completed_at":"2026-01-03T00:00:00Z","updated_at":"2026-01-03T00:00:00Z"}],"total_entries":1}`, n+1, id)
	case path == "/pools":
		b.WriteString(`{"pools":[{"name":"default_pool","slots":128}],"total_entries":1}`)
	case path == "/connections":
		b.WriteString(`{"connections":[],"total_entries":0}`)
	case path == "/variables":
		b.WriteString(`{"variables":[],"total_entries":0}`)
	default:
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write([]byte(b.String()))
}

func (f *fakeAirflowScale) backfillDAG(i int) bool { return i%10 == 0 }

func (f *fakeAirflowScale) dagPage(b *strings.Builder, offset, limit int) {
	b.WriteString(`{"dags":[`)
	for i := offset; i < min(offset+limit, f.dags); i++ {
		if i > offset {
			b.WriteByte(',')
		}
		tags := "[]"
		if f.backfillDAG(i) {
			tags = fmt.Sprintf(`[{"name":"backfill_id=BF-%d"}]`, 10000+i)
		}
		sched := `"timetable_summary":"@daily"`
		if f.version == "1" {
			sched = `"schedule_interval":{"__type":"CronExpression","value":"0 2 * * *"}`
		}
		fmt.Fprintf(b, `{"dag_id":"dag_%05d","is_paused":false,"owners":["data"],"fileloc":"/opt/airflow/dags/d.py",%s,"tags":%s,"max_active_runs":1}`, i, sched, tags)
	}
	fmt.Fprintf(b, `],"total_entries":%d}`, f.dags)
}

// runPage lists runs by id: run k is DAG k % dags's run number k / dags.
func (f *fakeAirflowScale) runPage(b *strings.Builder, runType string, offset, limit int) {
	total := f.dags * f.runs
	run := func(k int) (dag, n int, typ string) {
		dag, n, typ = k%f.dags, k/f.dags, "scheduled"
		if f.backfillDAG(dag) && n%30 == 0 {
			typ = "backfill"
		}
		return
	}
	if runType == "backfill" { // Airflow 3 filters on the server: one backfill run a backfill DAG
		total = (f.dags + 9) / 10
		run = func(k int) (int, int, string) { return k * 10, 0, "backfill" }
	}
	b.WriteString(`{"dag_runs":[`)
	for k := offset; k < min(offset+limit, total); k++ {
		if k > offset {
			b.WriteByte(',')
		}
		dag, n, typ := run(k)
		day := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n).Format(time.RFC3339)
		fmt.Fprintf(b, `{"dag_run_id":"%s__%s","dag_id":"dag_%05d","logical_date":%q,"execution_date":%q,"start_date":%q,"end_date":%q,"data_interval_start":%q,"data_interval_end":%q,"run_type":%q,"state":"success","external_trigger":false,"conf":{"note":"a run's conf, as big as a small one is"}}`,
			typ, day, dag, day, day, day, day, day, day, typ)
	}
	fmt.Fprintf(b, `],"total_entries":%d}`, total)
}

// airflowRun is one collection and what it cost.
type airflowRun struct {
	took        time.Duration
	calls       int64
	maxIn       int64
	byPath      map[string]int
	peak        uint64 // the most heap in use while collecting
	artifacts   int
	errors      int
	notes       []string
	concurrency int
}

func (r airflowRun) bound(latency time.Duration) time.Duration {
	return time.Duration(float64(r.calls) / float64(r.concurrency) * float64(latency))
}

func collectScale(tb testing.TB, version string, dags, runs int, latency time.Duration) airflowRun {
	tb.Helper()
	f := &fakeAirflowScale{version: version, dags: dags, runs: runs, latency: latency, byPath: map[string]int{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := airflow.New()
	c.URL, c.APIVersion = srv.URL, version
	c.RunLookback = 365 * 24 * time.Hour
	now := func() time.Time { return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) }
	if err := c.Init(collectors.Env{Selector: correlate.MustSelector(), Now: now}); err != nil {
		tb.Fatal(err)
	}
	sink := collectors.NewTestSink()

	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	err := collectors.Collect(context.Background(), c, sink)
	took := time.Since(start)
	close(stop)
	<-sampled
	if err != nil {
		tb.Fatal(err)
	}
	return airflowRun{took: took, calls: f.calls.Load(), maxIn: f.maxIn.Load(), byPath: f.byPath, peak: peak.Load(),
		artifacts: len(sink.Artifacts), errors: len(sink.Errors), notes: c.Notes(), concurrency: c.Concurrency}
}

// BenchmarkAirflowAtScale: 5,000 DAGs on Airflow 3, and 1,000 DAGs with
// 30 and 90 runs each on Airflow 2, at 50 ms an answer and the default
// settings. x-bound is the time over calls / concurrency × latency;
// peak-MiB is the heap in use at its highest (the fake's included), which
// must not grow with the runs a DAG has. Takes about a minute:
//
//	go test -run '^$' -bench AirflowAtScale -benchtime 1x ./bench/
func BenchmarkAirflowAtScale(b *testing.B) {
	const latency = 50 * time.Millisecond
	for _, tc := range []struct {
		name       string
		version    string
		dags, runs int
		target     float64
	}{
		{"airflow3 5000 DAGs", "2", 5000, 0, 1.1},
		{"airflow2 1000 DAGs x 30 runs", "1", 1000, 30, 1.1},
		{"airflow2 1000 DAGs x 90 runs", "1", 1000, 90, 1.1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var r airflowRun
			for b.Loop() {
				r = collectScale(b, tc.version, tc.dags, tc.runs, latency)
			}
			ratio := float64(r.took) / float64(r.bound(latency))
			b.ReportMetric(ratio, "x-bound")
			b.ReportMetric(float64(r.peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(r.calls), "calls")
			b.Logf("%s: %s for %d calls at %s, %d at a time (at most %d in flight): bound %s, measured/bound %.3f (target %.1f); peak heap in use %.1f MiB; %d artifacts, %d errors; calls %v; notes %q",
				tc.name, r.took.Round(time.Millisecond), r.calls, latency, r.concurrency, r.maxIn, r.bound(latency).Round(time.Millisecond),
				ratio, tc.target, float64(r.peak)/(1<<20), r.artifacts, r.errors, r.byPath, r.notes)
		})
	}
}

// TestAirflowAtScaleSmoke is the benchmark's estates, smaller and at 2 ms
// an answer: it checks calls, never times. Each page is read once, the
// Airflow 2 run listing takes the pages its entries need, no more than
// concurrency calls run at once, and every backfill run is found.
func TestAirflowAtScaleSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("a few thousand calls to a fake Airflow")
	}
	const latency = 2 * time.Millisecond
	t.Run("airflow3", func(t *testing.T) {
		r := collectScale(t, "2", 500, 0, latency)
		// 5 DAG pages, 1 run page; details of 500 DAGs; for the 50 backfill
		// DAGs active runs, tasks and backfill objects.
		want := map[string]int{"/dags": 5, "/dags/~/dagRuns": 1, "/dags/{id}/details": 500,
			"/dags/{id}/dagRuns": 50, "/dags/{id}/tasks": 50, "/backfills": 50,
			"/pools": 1, "/connections": 1, "/variables": 1}
		checkScale(t, r, want, 50+50) // 50 backfill DAGs, a backfill run each
	})
	t.Run("airflow2", func(t *testing.T) {
		r := collectScale(t, "1", 100, 90, latency)
		// 9,000 runs: 90 pages; 10 backfill DAGs with 3 backfill runs each.
		want := map[string]int{"/dags": 1, "/dags/~/dagRuns": 90, "/dags/{id}/details": 100,
			"/dags/{id}/dagRuns": 10, "/dags/{id}/tasks": 10,
			"/pools": 1, "/connections": 1, "/variables": 1}
		checkScale(t, r, want, 10+30) // 10 backfill DAGs, 30 backfill runs
	})
}

func checkScale(t *testing.T, r airflowRun, want map[string]int, artifacts int) {
	t.Helper()
	for k, n := range want {
		if r.byPath[k] != n {
			t.Errorf("%d calls to %s, want %d (all: %v)", r.byPath[k], k, n, r.byPath)
		}
	}
	if r.maxIn > int64(r.concurrency) {
		t.Errorf("%d calls at once, concurrency is %d", r.maxIn, r.concurrency)
	}
	if r.artifacts != artifacts || r.errors != 0 || len(r.notes) != 0 {
		t.Errorf("%d artifacts (want %d), %d errors, notes %q", r.artifacts, artifacts, r.errors, r.notes)
	}
}
