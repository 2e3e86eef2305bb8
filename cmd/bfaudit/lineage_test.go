package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// The quickstart's dbt project, three levels under the refunds table
// BF-1234 rewrote: each stale model is reported once with the rebuild
// order, a run that rebuilds them in order resolves every finding, and a
// manifest that cannot be read resolves none.
func TestDownstreamRebuildResolves(t *testing.T) {
	dir, cfg := quickstartWithSinks(t, newGHFake(t))
	lineage := func(r model.Report) []string {
		var out []string
		for _, f := range r.Findings {
			if f.RuleID == "BF024" || f.RuleID == "BF025" {
				out = append(out, f.RuleID+" "+f.ArtifactURI)
			}
		}
		slices.Sort(out)
		return out
	}
	code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "-f", "json")
	if code != exitFindings {
		t.Fatalf("run 1: exit %d: %s", code, stderr)
	}
	r1 := decodeReport(t, out)
	want := []string{
		"BF024 lineage://shop-analytics.intermediate.int_orders",
		"BF024 lineage://shop-analytics.marts.fct_revenue",
		"BF025 lineage://shop-analytics.marts.fct_refunds",
	}
	if got := lineage(r1); !slices.Equal(got, want) {
		t.Fatalf("run 1 lineage findings:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	for _, f := range r1.Findings {
		if f.RuleID == "BF024" && !strings.Contains(strings.Join(f.Evidence, "\n"),
			"rebuild order: 1. shop-analytics.intermediate.int_orders, 2. shop-analytics.marts.fct_refunds, 3. shop-analytics.marts.fct_revenue") {
			t.Errorf("%s: no rebuild order in its evidence: %q", f.ArtifactURI, f.Evidence)
		}
	}

	// A manifest that cannot be read resolves nothing.
	manifest := filepath.Join(dir, "dbt/target/manifest.json")
	good, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	write(t, manifest, "{not json")
	code, out, _ = bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T09:00:00Z", "-f", "json")
	if r := decodeReport(t, out); code != exitIncomplete || (r.History != nil && len(r.History.Resolved) != 0) {
		t.Errorf("run 2 with the manifest unreadable: exit %d, resolved %+v; want 3 and nothing resolved", code, r.History)
	}
	write(t, manifest, string(good))

	// The owner rebuilds the three models in order.
	rebuildRun(t, filepath.Join(dir, "dbt/target/run_results.json"), filepath.Join(dir, "dbt/runs/2026-11-30/run_results.json"),
		"model.jaffle.int_orders", "model.jaffle.fct_refunds", "model.jaffle.fct_revenue")
	code, out, stderr = bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T12:00:00Z", "-f", "json")
	if code != exitFindings {
		t.Fatalf("run 3: exit %d: %s", code, stderr)
	}
	r3 := decodeReport(t, out)
	if got := lineage(r3); len(got) != 0 {
		t.Errorf("run 3 still reports %q after the rebuild", got)
	}
	var resolved []string
	for _, f := range r3.History.Resolved {
		resolved = append(resolved, f.RuleID+" "+f.ArtifactURI)
	}
	slices.Sort(resolved)
	if !slices.Equal(resolved, want) {
		t.Errorf("run 3 resolved %q, want %q", resolved, want)
	}
}

// rebuildRun writes a dbt run_results file at to that rebuilt the nodes
// in the order given, a minute apart, on the audit's day, from the
// results of from (the same shape dbt writes).
func rebuildRun(t *testing.T, from, to string, nodes ...string) {
	t.Helper()
	var run map[string]any
	if err := json.Unmarshal([]byte(readFile(t, from)), &run); err != nil {
		t.Fatal(err)
	}
	byID := map[string]map[string]any{}
	for _, r := range run["results"].([]any) {
		res := r.(map[string]any)
		byID[res["unique_id"].(string)] = res
	}
	var results []any
	for i, n := range nodes {
		res := byID[n]
		if res == nil {
			t.Fatalf("%s holds no result of %s", from, n)
		}
		at := "2026-11-30T10:0" + string(rune('0'+i)) + ":00.000000Z"
		for _, tm := range res["timing"].([]any) {
			tm.(map[string]any)["started_at"], tm.(map[string]any)["completed_at"] = at, at
		}
		res["status"] = "success"
		results = append(results, res)
	}
	run["results"] = results
	run["metadata"].(map[string]any)["generated_at"] = "2026-11-30T10:05:00.000000Z"
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, to, string(b))
}
