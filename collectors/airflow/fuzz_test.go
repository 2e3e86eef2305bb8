package airflow

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
)

// FuzzDecodeAnswer: no API answer panics the decoder, an answer that
// decodes holds its list, and no error quotes the answer (it could hold
// anything a proxy echoed).
func FuzzDecodeAnswer(f *testing.F) {
	for _, s := range []string{
		`{"dags": [], "total_entries": 0}`, `null`, `{}`, ``, `{"dags": null}`, `[`, `{"dags": [{"dag_id": 1}]}`,
		`{"dag_runs": [{"dag_id": "a", "dag_run_id": "r", "conf": {"k": [1, {"x": null}]}}]}`, `{"backfills": [{"id": "x"}]}`,
		`{"tasks": [{"task_id": "t", "pool": null}]}`, `{"dag_id": "d", "start_date": "not a time"}`, `{"dags": [` + strings.Repeat(`{},`, 50) + `{}]}`,
		`{"schedule_interval": {"__type": "TimeDelta", "days": 1e300}, "dag_id": "x"}`, "\xef\xbb\xbf{}", `{"dags": []} trailing`,
	} {
		f.Add([]byte(s))
	}
	const marker = "SECRET-MARKER-123"
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, out := range []checker{&dagCollection{}, &dagRunCollection{}, &backfillCollection{}, &taskCollection{}, &dagJSON{}} {
			err := decodeAnswer(data, out)
			if err == nil {
				if out.check() != nil {
					t.Fatalf("decoded a malformed answer: %q", data)
				}
				if d, ok := out.(*dagJSON); ok {
					_ = d.schedule() // every schedule shape renders
				}
				continue
			}
			if bytes.Contains(data, []byte(marker)) && strings.Contains(err.Error(), marker) {
				t.Errorf("error quotes the answer: %v", err)
			}
		}
	})
}

// FuzzExport: no export panics the collector or hangs it; every error
// names the file it comes from; every artifact lies under the DAG listing.
func FuzzExport(f *testing.F) {
	qs := func(name string) []byte {
		b, _ := os.ReadFile(filepath.Join("../../examples/quickstart/airflow", name))
		return b
	}
	f.Add(qs("dags.json"), qs("dags/bf_1234_refund_replay/details.json"), qs("dagRuns.json"), qs("backfills.json"))
	f.Add([]byte("null"), []byte("{}"), []byte(""), []byte("[]"))
	f.Add([]byte(`{"dags":[{"dag_id":"bf_1234_refund_replay","tags":[{"name":"bf-1234"}]},{"dag_id":"bf_1234_refund_replay"}]}`),
		[]byte(`{"dag_id":"x","catchup":"yes"}`), []byte(`{"dag_runs":[{"dag_id":"bf_1234_refund_replay"}]}`), []byte(`{"backfills":[{"id":0}]}`))
	f.Add([]byte(`{"dags":[{"dag_id":"../../etc"},{"dag_id":"bf_1234_refund_replay","schedule_interval":{"__type":"TimeDelta","days":-1}}]}`),
		[]byte(`{"dag_id":"bf_1234_refund_replay","start_date":"1900-01-01T00:00:00Z","catchup":true}`),
		[]byte(`{"dag_runs":null}`), []byte(`{"backfills":[{"id":1,"dag_id":"bf_1234_refund_replay","dag_run_conf":{"backfill_id":""}}]}`))
	f.Fuzz(func(t *testing.T, dags, details, runs, backfills []byte) {
		dir := t.TempDir()
		files := map[string][]byte{"dags.json": dags, "dags/bf_1234_refund_replay/details.json": details,
			"dags/bf_1234_refund_replay/tasks.json": details, "dagRuns.json": runs, "backfills.json": backfills}
		for name, b := range files {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c := New()
		c.ExportDir = dir
		// The fuzzed files are the DAG listing's; the deployment-wide
		// listings have their own tests.
		c.Pools, c.Connections, c.Variables = false, false, false
		if err := c.Init(env("")); err != nil {
			t.Fatal(err)
		}
		sink := collectors.NewTestSink()
		done := make(chan error, 1)
		go func() { done <- collectors.Collect(t.Context(), c, sink) }()
		select {
		case err := <-done:
			// The DAG listing is the only unit: its failure is the
			// source's, and must be the listing's own error.
			if err != nil && (!strings.Contains(err.Error(), "list DAGs") || !strings.Contains(err.Error(), ".json")) {
				t.Fatalf("Collect: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Collect did not return within 10s: %q %q %q %q", dags, details, runs, backfills)
		}
		for _, e := range sink.Errors {
			if !strings.Contains(e.Error, ".json") {
				t.Errorf("error names no file: %s", e.Error)
			}
			if e.Scope != scopeDAGs && !strings.HasPrefix(e.Scope, scopeDAGs+"/") {
				t.Errorf("error outside the DAG listing: %+v", e)
			}
		}
		for _, a := range sink.Artifacts {
			if !strings.HasPrefix(a.Scope, scopeDAGs+"/") {
				t.Errorf("artifact %s outside any DAG: %q", a.URI, a.Scope)
			}
		}
		for _, b := range sink.Backfills {
			if !strings.HasPrefix(b.Source.Path, scopeDAGs+"/") {
				t.Errorf("backfill %s outside any DAG: %q", b.ID, b.Source.Path)
			}
		}
	})
}
