package dbt_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// withCommand rewrites the newer run as if another command had written
// it: args.which and args.command, and, as dbt does for what it does not
// run in the warehouse, an empty adapter_response.
func withCommand(t *testing.T, which string, keepResponses bool) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(read(t, "testdata/"+newerRun)), &doc); err != nil {
		t.Fatal(err)
	}
	args := doc["args"].(map[string]any)
	if which == "" {
		delete(doc, "args")
	} else {
		args["which"], args["command"] = which, which
	}
	if !keepResponses {
		for _, r := range doc["results"].([]any) {
			r.(map[string]any)["adapter_response"] = map[string]any{}
		}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Only run, build, seed and snapshot build tables. A run_results.json
// from dbt compile (often the last command in a target/), docs generate,
// test, show, list or parse names the nodes it touched with status
// success, yet built nothing: int_orders and fct_revenue keep the older
// run's build, so a backfill after it leaves them stale (BF024), never
// "rebuilt after it" (BF025).
func TestOnlyCommandsThatBuildAreBuilds(t *testing.T) {
	for _, c := range []struct {
		which  string
		keep   bool // the results keep their adapter_response
		builds bool
	}{
		{"compile", false, false}, {"generate", false, false}, {"test", false, false}, {"show", false, false},
		{"list", false, false}, {"ls", false, false}, {"parse", false, false},
		// Even with what looks like a warehouse's answer: the command says.
		{"compile", true, false},
		{"run", true, true}, {"build", true, true},
		// A file that does not say its command: a result counts when the
		// warehouse answered it.
		{"", true, true}, {"", false, false},
	} {
		name := c.which
		if name == "" {
			name = "no args.which"
		}
		t.Run(name+map[bool]string{true: "+responses"}[c.keep], func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, "testdata/v12/target/manifest.json", filepath.Join(dir, "target/manifest.json"))
			copyFile(t, "testdata/"+olderRun, filepath.Join(dir, olderRun))
			write(t, filepath.Join(dir, newerRun), withCommand(t, c.which, c.keep))
			s, err := collect(t, dir, []string{"target"}, []string{"runs/*/run_results.json"})
			if err != nil || len(s.Errors) > 0 {
				t.Fatalf("err %v, errors %v", err, s.Errors)
			}
			b := build(t, s, intOrders)
			if c.builds {
				if !b.At.Equal(at("2026-05-20T06:01:31.66Z")) || b.Scope != newerRun {
					t.Errorf("int_orders: %+v, want the newer run's build", b)
				}
				return
			}
			if !b.At.Equal(at("2026-05-01T06:00:19.34Z")) || b.Scope != olderRun || b.Status != "success" {
				t.Errorf("int_orders: %+v, want the older run's build: dbt %s builds nothing", b, c.which)
			}
			// fct_refunds failed in the newer run; a compile says nothing of that.
			if b := build(t, s, fctRefunds); b.Status != "success" {
				t.Errorf("fct_refunds: %+v: status from a run that built nothing", b)
			}
			if got, _ := s.Read(newerRun, "builds"); got != 0 {
				t.Errorf("reads of %s: %+v builds, want 0", newerRun, got)
			}
			if got, _ := s.Read(newerRun, "results"); got != 4 {
				t.Errorf("reads of %s: %+v results, want 4", newerRun, got)
			}
		})
	}
}

// In a dbt build, a test's result is no build, and neither is an
// operation's (on-run-end hooks): only models, seeds and snapshots are.
func TestABuildCountsOnlyWhatItBuilt(t *testing.T) {
	s, err := collect(t, testdata(t), []string{"v12/target"}, []string{olderRun, newerRun})
	if err != nil || len(s.Errors) > 0 {
		t.Fatalf("err %v, errors %v", err, s.Errors)
	}
	var doc struct {
		Results []struct {
			UniqueID string `json:"unique_id"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(read(t, "testdata/"+olderRun)), &doc); err != nil {
		t.Fatal(err)
	}
	built := 0
	for _, r := range doc.Results {
		if typ, _, _ := strings.Cut(r.UniqueID, "."); typ == "model" || typ == "seed" || typ == "snapshot" {
			built++
		}
	}
	if got, _ := s.Read(olderRun, "builds"); got != built || built == 0 || built == len(doc.Results) {
		t.Errorf("%s: %d builds read, want the %d models, seeds and snapshots of its %d results", olderRun, got, built, len(doc.Results))
	}
	// The manifest's unit says what it read: its nodes and its edges.
	if got, _ := s.Read("v12/target/manifest.json", "edges"); got != len(wantEdges) {
		t.Errorf("edges read: %+v, want %d", got, len(wantEdges))
	}
	var m struct {
		Nodes, Sources map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(read(t, "testdata/v12/target/manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Read("v12/target/manifest.json", "nodes"); got != len(m.Nodes)+len(m.Sources) {
		t.Errorf("nodes read: %+v, want %d", got, len(m.Nodes)+len(m.Sources))
	}
}

// A view holds no rows of its own: its build says so, and lineage passes
// through it (correlate, rules). An ephemeral model is no table at all.
func TestViewsAreMarked(t *testing.T) {
	s, err := collect(t, testdata(t), []string{"v12/target"}, nil)
	if err != nil || len(s.Errors) > 0 {
		t.Fatalf("err %v, errors %v", err, s.Errors)
	}
	views := map[string]bool{}
	for _, b := range s.Builds {
		if b.View {
			views[b.Table] = true
		}
	}
	if len(views) != 2 || !views[stgOrders] || !views[stgRefunds] {
		t.Errorf("views: %v, want the two staging views", views)
	}
	for _, b := range s.Builds {
		if strings.Contains(b.Table, "orders_with_fx") {
			t.Errorf("the ephemeral model is a table: %+v", b)
		}
	}
}

// dbt 1.5's manifest v9 and run-results v4, and v20 (what dbt Fusion
// wrote before it named the same shape v12), are read; anything else is
// refused with the versions that are read.
func TestManifestVersionsRead(t *testing.T) {
	for _, c := range []struct {
		manifest, runs, refused string
	}{
		{manifest: "v9", runs: "v4"},
		{manifest: "v20", runs: "v6"},
		{manifest: "v8", runs: "v6", refused: "manifest v9, v10, v11, v12 and v20 (dbt 1.5 and later, and dbt Fusion)"},
		{manifest: "v13", runs: "v6", refused: "manifest v9, v10, v11, v12 and v20 (dbt 1.5 and later, and dbt Fusion)"},
		{manifest: "v12", runs: "v3", refused: "run-results v4, v5 and v6 (dbt 1.0 and later, and dbt Fusion)"},
	} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "target/manifest.json"), strings.Replace(read(t, "testdata/v12/target/manifest.json"), "manifest/v12.json", "manifest/"+c.manifest+".json", 1))
		write(t, filepath.Join(dir, "target/run_results.json"), strings.Replace(read(t, "testdata/"+newerRun), "run-results/v6.json", "run-results/"+c.runs+".json", 1))
		s, err := collect(t, dir, []string{"target"}, []string{"target"})
		if c.refused == "" {
			if err != nil || len(s.Errors) > 0 {
				t.Errorf("%s/%s: err %v, errors %v", c.manifest, c.runs, err, s.Errors)
			} else if b := build(t, s, intOrders); !b.At.Equal(at("2026-05-20T06:01:31.66Z")) {
				t.Errorf("%s/%s: int_orders %+v", c.manifest, c.runs, b)
			}
			continue
		}
		if len(s.Errors) != 1 || !strings.Contains(s.Errors[0].Error, "bfaudit reads "+c.refused) || strings.Contains(s.Errors[0].Error, "1.6 and later") {
			t.Errorf("%s/%s: errors %+v, want one naming %q", c.manifest, c.runs, s.Errors, c.refused)
		}
	}
}
