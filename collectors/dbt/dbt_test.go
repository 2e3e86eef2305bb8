package dbt_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/dbt"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

const (
	rawOrders  = "acme-raw.raw.orders"
	rawRefunds = "acme-raw.raw.refunds"
	rates      = "acme-analytics.seeds.currency_rates"
	stgOrders  = "acme-analytics.staging.stg_orders"
	stgRefunds = "acme-analytics.staging.stg_refunds"
	intOrders  = "acme-analytics.intermediate.int_orders"
	fctRevenue = "acme-analytics.marts.fct_revenue"
	fctRefunds = "acme-analytics.marts.fct_refunds"
	snapshot   = "acme-analytics.snapshots.orders_snapshot"
	olderRun   = "runs/2026-05-01/run_results.json"
	newerRun   = "runs/2026-05-20/run_results.json"
)

// The jaffle project's lineage, as a person reads it from the SQL: the
// ephemeral orders_with_fx is inlined into int_orders, so int_orders is
// built from its parents; tests are no tables.
var wantEdges = []string{
	rawOrders + " -> " + stgOrders,
	rawOrders + " -> " + snapshot,
	rawRefunds + " -> " + stgRefunds,
	intOrders + " -> " + fctRefunds,
	intOrders + " -> " + fctRevenue,
	rates + " -> " + intOrders,
	stgOrders + " -> " + intOrders,
	stgRefunds + " -> " + fctRefunds,
	stgRefunds + " -> " + intOrders,
}

func init() { slices.Sort(wantEdges) }

func testdata(t *testing.T) string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func collect(t *testing.T, base string, manifests, runs []string) (*collectors.TestSink, error) {
	t.Helper()
	d := &dbt.DBT{Manifests: manifests, RunResults: runs}
	if err := d.Init(collectors.Env{Source: "dbt", BaseDir: base, Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return collectortest.Collect(t, d)
}

func edges(s *collectors.TestSink) []string {
	var out []string
	for _, e := range s.Edges {
		out = append(out, e.Parent+" -> "+e.Child)
	}
	slices.Sort(out)
	return out
}

func build(t *testing.T, s *collectors.TestSink, table string) model.Build {
	t.Helper()
	for _, b := range s.Builds {
		if b.Table == table {
			return b
		}
	}
	t.Fatalf("no build of %s in %+v", table, s.Builds)
	return model.Build{}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestLineageOfEveryManifestVersion(t *testing.T) {
	for _, v := range []string{"v10", "v11", "v12"} {
		t.Run(v, func(t *testing.T) {
			s, err := collect(t, testdata(t), []string{v + "/target"}, nil)
			if err != nil || len(s.Errors) > 0 {
				t.Fatalf("err %v, errors %v", err, s.Errors)
			}
			if got := edges(s); !slices.Equal(got, wantEdges) {
				t.Errorf("edges:\n got %q\nwant %q", got, wantEdges)
			}
			scope := v + "/target/manifest.json"
			for _, e := range s.Edges {
				if e.Scope != scope || e.System != "dbt" || !strings.HasPrefix(e.Via, "model.jaffle.") && !strings.HasPrefix(e.Via, "snapshot.jaffle.") {
					t.Errorf("edge %+v: want scope %s, system dbt, via the child's unique_id", e, scope)
				}
			}
			if e := s.Edges[slices.IndexFunc(s.Edges, func(e model.Edge) bool { return e.Child == fctRevenue })]; e.Via != "model.jaffle.fct_revenue" {
				t.Errorf("edge into fct_revenue is via %q", e.Via)
			}
			// Every table, and only tables: no test, no ephemeral model.
			if len(s.Builds) != 9 {
				t.Errorf("%d builds, want the 9 tables: %+v", len(s.Builds), s.Builds)
			}
			for _, b := range s.Builds {
				if !b.At.IsZero() || b.Scope != scope {
					t.Errorf("build %+v: no run was read, so no build time, at the manifest's scope", b)
				}
			}
		})
	}
}

func TestBuildsTakeTheNewestRun(t *testing.T) {
	for _, runs := range [][]string{{olderRun, newerRun}, {"runs/*/run_results.json"}, {newerRun, "runs/2026-05-01"}} {
		s, err := collect(t, testdata(t), []string{"v12/target/manifest.json"}, runs)
		if err != nil || len(s.Errors) > 0 {
			t.Fatalf("%v: err %v, errors %v", runs, err, s.Errors)
		}
		want := map[string]model.Build{
			// Rebuilt by the newer run.
			intOrders:  {Node: "int_orders", NodeID: "model.jaffle.int_orders", At: at("2026-05-20T06:01:31.66Z"), Status: "success", Owner: "data-eng@acme.example", Scope: newerRun},
			fctRevenue: {Node: "fct_revenue", NodeID: "model.jaffle.fct_revenue", At: at("2026-05-20T06:01:37.02Z"), Status: "success", Owner: "finance-analytics@acme.example", Scope: newerRun},
			// Failed in the newer run: the table is still the older build.
			fctRefunds: {Node: "fct_refunds", NodeID: "model.jaffle.fct_refunds", At: at("2026-05-01T06:00:23.08Z"), Status: "error", Owner: "data-eng@acme.example", Scope: olderRun},
			// Only in the older run.
			stgOrders: {Node: "stg_orders", NodeID: "model.jaffle.stg_orders", View: true, At: at("2026-05-01T06:00:06.22Z"), Status: "success", Owner: "data-eng@acme.example", Scope: olderRun},
			rates:     {Node: "currency_rates", NodeID: "seed.jaffle.currency_rates", At: at("2026-05-01T06:00:04.93Z"), Status: "success", Owner: "finance-ops@acme.example", Scope: olderRun},
			snapshot:  {Node: "orders_snapshot", NodeID: "snapshot.jaffle.orders_snapshot", At: at("2026-05-01T06:00:11.87Z"), Status: "success", Scope: olderRun},
			// A source is never built by dbt: known, no build.
			rawOrders: {Node: "source:raw.orders", NodeID: "source.jaffle.raw.orders", Scope: "v12/target/manifest.json"},
		}
		for table, w := range want {
			w.Table, w.System = table, "dbt"
			if got := build(t, s, table); got != w {
				t.Errorf("%v: build of %s:\n got %+v\nwant %+v", runs, table, got, w)
			}
		}
	}
}

func TestABrokenManifestIsItsOwnUnit(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "testdata/v12/target/manifest.json", filepath.Join(dir, "shop/target/manifest.json"))
	write(t, filepath.Join(dir, "old/target/manifest.json"), strings.Replace(read(t, "testdata/v11/target/manifest.json"), "manifest/v11.json", "manifest/v8.json", 1))
	write(t, filepath.Join(dir, "cut/target/manifest.json"), read(t, "testdata/v10/target/manifest.json")[:5000])
	write(t, filepath.Join(dir, "odd/target/manifest.json"), `{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"},
 "nodes": [], "sources": {}}`)
	s, err := collect(t, dir, []string{"*/target"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantErr := map[string]string{
		"old/target/manifest.json": `metadata.dbt_schema_version: "https://schemas.getdbt.com/dbt/manifest/v8.json" is not supported; bfaudit reads manifest v9, v10, v11, v12 and v20 (dbt 1.5 and later, and dbt Fusion)`,
		"cut/target/manifest.json": "line 191: invalid JSON: unexpected end of JSON input",
		"odd/target/manifest.json": "line 2: nodes: expected an object, got array",
	}
	if len(s.Errors) != len(wantErr) {
		t.Errorf("errors: %+v", s.Errors)
	}
	for _, e := range s.Errors {
		if w, ok := wantErr[e.Scope]; !ok || !strings.HasPrefix(e.Error, w) || strings.Contains(e.Error, e.Scope) {
			t.Errorf("error at %s: %q, want one saying %q", e.Scope, e.Error, w)
		}
	}
	if got := edges(s); !slices.Equal(got, wantEdges) {
		t.Errorf("the good manifest's edges:\n got %q\nwant %q", got, wantEdges)
	}
	for _, e := range s.Edges {
		if e.Scope != "shop/target/manifest.json" {
			t.Errorf("edge from %s, a manifest that did not read", e.Scope)
		}
	}
}

func TestNoManifestReadFailsTheSource(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "target/manifest.json"), "{")
	s, err := collect(t, dir, []string{"target", "missing/manifest.json"}, nil)
	if err == nil {
		t.Fatal("no manifest read, yet the source answered")
	}
	if len(s.Errors) != 2 || s.Errors[0].Scope != "target/manifest.json" || s.Errors[1].Scope != "missing/manifest.json" {
		t.Errorf("errors: %+v", s.Errors)
	}
	if strings.Contains(s.Errors[1].Error, dir) {
		t.Errorf("error names the resolved path, not the unit: %s", s.Errors[1].Error)
	}
}

// A run that does not read concludes nothing: its newer builds are not
// taken from it, and the older run's are not passed off as the latest
// without the error at the broken run's unit.
func TestABrokenRunIsItsOwnUnit(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "testdata/v12/target/manifest.json", filepath.Join(dir, "target/manifest.json"))
	copyFile(t, "testdata/"+olderRun, filepath.Join(dir, olderRun))
	write(t, filepath.Join(dir, newerRun), strings.Replace(read(t, "testdata/"+newerRun), "run-results/v6.json", "run-results/v3.json", 1))
	s, err := collect(t, dir, []string{"target"}, []string{"runs/*/run_results.json"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Errors) != 1 || s.Errors[0].Scope != newerRun || !strings.HasPrefix(s.Errors[0].Error, "metadata.dbt_schema_version:") {
		t.Fatalf("errors: %+v", s.Errors)
	}
	if b := build(t, s, intOrders); !b.At.Equal(at("2026-05-01T06:00:19.34Z")) || b.Scope != olderRun {
		t.Errorf("int_orders: %+v, want the older run's build", b)
	}
}

func TestAGlobThatMatchesNothingIsAnError(t *testing.T) {
	s, err := collect(t, testdata(t), []string{"v12/target"}, []string{"runs/*/run-results.json"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Errors) != 1 || s.Errors[0].Scope != "runs" || !strings.Contains(s.Errors[0].Error, "matches no file") {
		t.Errorf("errors: %+v", s.Errors)
	}
}

func TestInitRejectsBadConfig(t *testing.T) {
	for _, c := range []struct {
		d    dbt.DBT
		want string
	}{
		{dbt.DBT{}, "manifests: missing"},
		{dbt.DBT{Manifests: []string{"gs://bucket/target/manifest.json"}}, "manifests[0]: \"gs://bucket/target/manifest.json\": only local files"},
		{dbt.DBT{Manifests: []string{"target"}, RunResults: []string{" "}}, "run_results[0]: empty path"},
		{dbt.DBT{Manifests: []string{"runs/[/manifest.json"}}, "manifests[0]: \"runs/[/manifest.json\" is not a valid glob"},
	} {
		if err := c.d.Init(collectors.Env{Source: "dbt", Selector: correlate.MustSelector(), Now: time.Now}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.d, err, c.want)
		}
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	inst := collectortest.DecodeSample(t, "sample.yaml")
	d := inst.Collector.(*dbt.DBT)
	if len(d.Manifests) != 1 || len(d.RunResults) != 2 {
		t.Errorf("sample decoded as %+v", d)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) { t.Helper(); write(t, to, read(t, from)) }
