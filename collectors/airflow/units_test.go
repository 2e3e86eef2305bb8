package airflow

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

func covOf(sink *collectors.TestSink) model.Coverage {
	c := model.Coverage{Status: model.CoverageOK, Errors: sink.Errors}
	if len(c.Errors) > 0 {
		c.Status = model.CoverageDegraded
	}
	return c
}

func errorScopes(sink *collectors.TestSink) []string {
	var out []string
	for _, e := range sink.Errors {
		out = append(out, e.Scope)
	}
	return out
}

// Issue 11, reproduction 2: a DAG's artifacts carry its own unit, so an
// error for one DAG's details covers exactly that DAG (before, the error
// was at dags/<id> and the DAG at "dags": BF106 was ticked and resolved).
func TestUnitsOfWhatIsEmitted(t *testing.T) {
	f := newFakeAirflow(t, "2")
	c, _ := newCollector(t, f, "2")
	sink := collect(t, c)
	for _, a := range sink.Artifacts {
		dag := a.Name
		if a.Kind == model.KindJobRun {
			dag = a.Attr(AttrDagID)
		}
		want := map[model.Kind]string{model.KindSchedulerJob: "dags/" + dag, model.KindJobRun: "dags/" + dag + "/runs",
			model.KindPool: "pools", model.KindCredential: "connections", model.KindVariable: "variables"}[a.Kind]
		if a.Scope != want {
			t.Errorf("%s: scope %q, want %q", a.URI, a.Scope, want)
		}
	}
	for _, b := range sink.Backfills {
		if !strings.HasPrefix(b.Source.Path, "dags/"+b.JobID+"/backfills/") {
			t.Errorf("backfill %s: source path %q, want under dags/%s/backfills", b.ID, b.Source.Path, b.JobID)
		}
	}

	f.failAll["/api/v2/dags/daily_revenue/details"] = 500
	sink = collect(t, c)
	cov := covOf(sink)
	if cov.Answered("dags/daily_revenue") || !cov.Answered("dags/bf_1234_refund_replay") || !cov.Answered("dags") {
		t.Errorf("one DAG's details failed; errors at %v", errorScopes(sink))
	}
}

func TestListingFailuresAreAtTheListing(t *testing.T) {
	t.Run("DAG listing", func(t *testing.T) {
		f := newFakeAirflow(t, "2")
		f.failAll["/api/v2/dags"] = 500
		c, _ := newCollector(t, f, "2")
		sink := collect(t, c)
		if got := errorScopes(sink); len(got) != 1 || got[0] != "dags" {
			t.Errorf("errors at %v, want one at dags", got)
		}
		if n := len(uris(sink, model.KindSchedulerJob)) + len(uris(sink, model.KindJobRun)); n != 0 {
			t.Errorf("DAGs or runs without a DAG listing: %v", uris(sink, ""))
		}
		// The deployment-wide listings are units of their own.
		if len(uris(sink, model.KindPool)) == 0 {
			t.Error("pools not reported though their listing answered")
		}
	})
	t.Run("backfill runs across DAGs", func(t *testing.T) {
		f := newFakeAirflow(t, "2")
		f.failAll["/api/v2/dags/~/dagRuns"] = 500
		c, _ := newCollector(t, f, "2")
		sink := collect(t, c)
		if got := errorScopes(sink); len(got) != 1 || got[0] != "dags" {
			t.Errorf("errors at %v, want one at dags", got)
		}
	})
	t.Run("one DAG's runs", func(t *testing.T) {
		f := newFakeAirflow(t, "2")
		f.failAll["/api/v2/dags/bf_3100_ledger_replay/dagRuns"] = 500
		c, _ := newCollector(t, f, "2")
		sink := collect(t, c)
		if got := errorScopes(sink); len(got) != 1 || got[0] != "dags/bf_3100_ledger_replay/runs" {
			t.Errorf("errors at %v, want one at dags/bf_3100_ledger_replay/runs", got)
		}
		if sink.Artifact(base+"bf_3100_ledger_replay") == nil {
			t.Error("the DAG itself is still reported")
		}
	})
	t.Run("page 3 of the DAG listing", func(t *testing.T) {
		f := newFakeAirflow(t, "2")
		c, _ := newCollector(t, f, "2")
		f.misbehave["/api/v2/dags"] = failFromOffset(f, 6)
		sink := collect(t, c)
		if got := errorScopes(sink); len(got) != 1 || got[0] != "dags" {
			t.Errorf("errors at %v, want one at dags", got)
		}
	})
}

// copyExport copies the quickstart export into a temp dir the test may
// break.
func copyExport(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := "../../examples/quickstart/airflow"
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func exportCollector(t *testing.T, dir string) *Airflow {
	t.Helper()
	c := New()
	c.ExportDir = dir
	if err := c.Init(env("scheduler")); err != nil {
		t.Fatal(err)
	}
	return c
}

func collectWithin(t *testing.T, c *Airflow, d time.Duration) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	done := make(chan error, 1)
	go func() { done <- collectors.Collect(context.Background(), c, sink) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Collect: %v", err)
		}
	case <-time.After(d):
		t.Fatalf("Collect did not return within %s", d)
	}
	return sorted(sink)
}

// Export mode has the same units as the API; a file that is present but
// empty, null or malformed is an error at its unit, never an empty answer.
func TestExportUnits(t *testing.T) {
	const bf1234 = "dags/bf_1234_refund_replay"
	tests := []struct {
		name  string
		file  string
		body  string
		wants []string // every error scope, sorted
	}{
		{"corrupt details", bf1234 + "/details.json", "{\"dag_id\": ", []string{bf1234}},
		{"null details", bf1234 + "/details.json", "null", []string{bf1234}},
		{"corrupt tasks", bf1234 + "/tasks.json", "[", []string{bf1234}},
		{"dags.json null", "dags.json", "null", []string{"dags"}},
		{"dags.json empty", "dags.json", "", []string{"dags"}},
		{"dags.json without list", "dags.json", `{"total_entries": 3}`, []string{"dags"}},
		{"dagRuns.json null", "dagRuns.json", "null", []string{"dags", "dags/bf_1234_refund_replay/runs", "dags/bf_3100_ledger_replay/runs"}},
		{"backfills.json null", "backfills.json", `{"backfills": null}`, []string{
			"dags/bf_1234_refund_replay/backfills", "dags/bf_1234_refund_replay/runs",
			"dags/bf_3100_ledger_replay/backfills", "dags/bf_3100_ledger_replay/runs",
			"dags/daily_revenue/backfills", "dags/daily_revenue/runs"}},
		{"one DAG's own runs file", "dags/bf_3100_ledger_replay/dagRuns.json", "{}", []string{"dags/bf_3100_ledger_replay/runs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyExport(t)
			if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			sink := collectWithin(t, exportCollector(t, dir), 20*time.Second)
			got := errorScopes(sink)
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(tt.wants, " ") {
				t.Errorf("errors at %v, want %v\n%+v", got, tt.wants, sink.Errors)
			}
			for _, e := range sink.Errors {
				if !strings.Contains(e.Error, filepath.Base(tt.file)) {
					t.Errorf("error does not name the file %s: %s", tt.file, e.Error)
				}
			}
		})
	}
}

// Odd files in an export: a named pipe as a DAG's details is skipped with
// an error at that DAG, not a hang; a symlink to /dev/zero as dags.json
// is an error at the listing, not an out-of-memory crash.
func TestExportOddFiles(t *testing.T) {
	dir := copyExport(t)
	details := filepath.Join(dir, "dags/daily_revenue/details.json")
	os.Remove(details)
	if err := syscall.Mkfifo(details, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sink := collectWithin(t, exportCollector(t, dir), 20*time.Second)
	if got := errorScopes(sink); len(got) != 1 || got[0] != "dags/daily_revenue" || !strings.Contains(sink.Errors[0].Error, "not a regular file") {
		t.Errorf("errors %+v", sink.Errors)
	}
	os.Remove(filepath.Join(dir, "dags.json"))
	os.Symlink("/dev/zero", filepath.Join(dir, "dags.json"))
	sink = collectWithin(t, exportCollector(t, dir), 20*time.Second)
	if got := errorScopes(sink); len(got) != 1 || got[0] != "dags" {
		t.Errorf("errors %+v", sink.Errors)
	}
}

// Each DAG with calls of its own to make is a unit, and says what it read
// even when every call answered there was nothing: a DAG whose details
// are gone (404) reads 0 DAG details, never "declared and not read".
func TestDAGUnitWithNothingToRead(t *testing.T) {
	f := newFakeAirflow(t, "2")
	f.failAll["/api/v2/dags/hourly_clicks/details"] = 404
	c, _ := newCollector(t, f, "2")
	units, err := c.Units(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(units, "dags/hourly_clicks") || units[0] != "dags" {
		t.Fatalf("units %v: want dags first and a unit for hourly_clicks", units)
	}
	sink := collect(t, c)
	if len(sink.Errors) != 0 {
		t.Errorf("errors %+v", sink.Errors)
	}
	found := slices.ContainsFunc(sink.Reads, func(r model.UnitRead) bool {
		return r.Scope == "dags/hourly_clicks" && r.What == readDetails && r.Read == 0
	})
	if !found {
		t.Errorf("reads %+v: want 0 DAG details at dags/hourly_clicks", sink.Reads)
	}
}

// A DAG listing that fails does not fail Units: "dags" is then the only
// DAG unit, and reading it returns the listing's error.
func TestFailedDAGListingDeclaresDagsAlone(t *testing.T) {
	f := newFakeAirflow(t, "2")
	f.failAll["/api/v2/dags"] = 500
	c, _ := newCollector(t, f, "2")
	units, err := c.Units(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{scopeDAGs, scopePools, scopeConnections, scopeVariables}; !slices.Equal(units, want) {
		t.Errorf("units %v, want %v", units, want)
	}
	if err := c.CollectUnit(context.Background(), scopeDAGs, collectors.NewTestSink()); err == nil || !strings.Contains(err.Error(), "list DAGs") {
		t.Errorf("CollectUnit(dags) = %v, want the listing's error", err)
	}
}
