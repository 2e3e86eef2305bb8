package dbt_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/dbt"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// Two projects' manifests and two runs, each a unit.
const (
	shopManifest = "shop/target/manifest.json"
	fxManifest   = "fx/target/manifest.json"
)

// unit breaks scope (a directory where the file was) in two projects'
// artifacts, read with their runs or without.
func unit(kind, scope string, runs bool) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		dir := t.TempDir()
		copyFile(t, "testdata/v12/target/manifest.json", filepath.Join(dir, shopManifest))
		// The second project builds its own tables from the same source.
		write(t, filepath.Join(dir, fxManifest), strings.ReplaceAll(read(t, "testdata/v11/target/manifest.json"), "acme-analytics", "acme-fx"))
		d := &dbt.DBT{Manifests: []string{"shop/target", fxManifest}}
		if runs {
			copyFile(t, "testdata/"+olderRun, filepath.Join(dir, olderRun))
			copyFile(t, "testdata/"+newerRun, filepath.Join(dir, newerRun))
			d.RunResults = []string{"runs/*/run_results.json"}
		}
		if err := d.Init(collectors.Env{Source: "dbt", BaseDir: dir, Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
			t.Fatal(err)
		}
		return d, func() {
			p := filepath.Join(dir, scope)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}}
}

var units = []faultmatrix.Unit{
	unit("manifest", shopManifest, true),
	unit("manifest", fxManifest, true),
	unit("run_results", newerRun, true),
}

// The matrix's plan rewrote acme-raw.raw.orders, this fixture's source:
// with no run results every table derived from it is stale (BF024), and
// each finding rests on the manifest whose edge leads to the table. A run
// results file is no unit of the matrix: losing one only hides builds, so
// tables look staler, never fresher, and nothing can resolve falsely
// (TestLineageUnitsFailAlone checks it reports nothing it did not read).
func TestFaultMatrix(t *testing.T) {
	faultmatrix.Run(t, "dbt", []faultmatrix.Unit{unit("manifest", shopManifest, false), unit("manifest", fxManifest, false)})
}

func TestLineageUnitsFailAlone(t *testing.T) {
	for _, u := range units {
		t.Run(u.Kind+" "+u.Scope, func(t *testing.T) {
			c, breakUnit := u.Setup(t)
			run := func() *model.Estate {
				est, err := audit.Collect(context.Background(), []collectors.Instance{{Name: "dbt", Type: "dbt", Collector: c}},
					correlate.MustSelector(), 0, faultmatrix.Now)
				if err != nil {
					t.Fatal(err)
				}
				return est
			}
			before := run()
			if !model.AnswersOf(before.Coverage).Answered("dbt", u.Scope) {
				t.Fatalf("run 1: %s not answered: %+v", u.Scope, before.Coverage)
			}
			breakUnit()
			after := run()
			answers := model.AnswersOf(after.Coverage)
			if answers.Answered("dbt", u.Scope) {
				t.Errorf("run 2: %s still counts as answered though it did not read", u.Scope)
			}
			for _, other := range units {
				if other.Scope != u.Scope && !answers.Answered("dbt", other.Scope) {
					t.Errorf("run 2: %s failed too though only %s broke", other.Scope, u.Scope)
				}
			}
			for _, e := range after.Edges {
				if e.Scope == u.Scope {
					t.Errorf("run 2 reports an edge from %s, which did not read: %+v", u.Scope, e)
				}
			}
			for _, b := range after.Builds {
				if b.Scope == u.Scope {
					t.Errorf("run 2 reports a build from %s, which did not read: %+v", u.Scope, b)
				}
			}
			// What the other units said is all still there.
			if want := countOutside(before.Edges, u.Scope); countOutside(after.Edges, u.Scope) != want {
				t.Errorf("run 2 lost edges of units that answered")
			}
			if u.Kind == "run_results" {
				// The newer run's builds are not passed off as known from
				// the older one under the newer run's unit.
				for _, b := range after.Builds {
					if b.At.After(time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)) {
						t.Errorf("build %+v comes from a run that did not read", b)
					}
				}
			}
		})
	}
}

func countOutside(es []model.Edge, scope string) int {
	n := 0
	for _, e := range es {
		if e.Scope != scope {
			n++
		}
	}
	return n
}
