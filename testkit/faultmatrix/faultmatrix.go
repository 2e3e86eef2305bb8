// Package faultmatrix is the test every collector joins: for each unit a
// collector can fail at (the whole source, one file, project, dataset,
// namespace, DAG, vhost...), it audits a fixture twice, fails that unit on
// the second run, and proves that nothing the unit reported is ticked,
// closed or resolved, that the lifecycle does not move, and that the run
// says it is incomplete (exit 3). The rule it checks is docs/trust.md.
package faultmatrix

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/github"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/rules"
	_ "github.com/bfaudit/bfaudit/rules/builtin" // the whole catalogue
)

// BackfillID is the backfill the harness plans; fixtures tie their
// artifacts to it (label backfill_id=bf-7001, or a name holding bf_7001).
const BackfillID = "BF-7001"

// Now is the audit time of the first run; the second is an hour later.
var Now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// Unit is one part of a source that can fail on its own.
type Unit struct {
	// Kind is how the matrix prints it: source, file, project, DAG...
	Kind string
	// Scope is the scope path that fails ("" for the whole source).
	Scope string
	// Setup builds a fresh fixture and returns the collector (configured
	// and initialised; it is collected twice) and breakUnit, which makes
	// exactly this unit fail before the second collection.
	Setup func(t *testing.T) (c collectors.Collector, breakUnit func())
}

// Run runs the matrix for one collector type and logs its size.
func Run(t *testing.T, collectorType string, units []Unit) {
	t.Helper()
	if len(units) == 0 {
		t.Fatalf("fault matrix: %s lists no units", collectorType)
	}
	for _, u := range units {
		t.Run(u.Kind+" "+orWhole(u.Scope), func(t *testing.T) { runUnit(t, collectorType, u) })
	}
	kinds := make([]string, 0, len(units))
	for _, u := range units {
		if !slices.Contains(kinds, u.Kind) {
			kinds = append(kinds, u.Kind)
		}
	}
	fmt.Printf("fault matrix: %s: %d units (%s)\n", collectorType, len(units), strings.Join(kinds, ", "))
}

func orWhole(scope string) string {
	if scope == "" {
		return "(whole source)"
	}
	return scope
}

func runUnit(t *testing.T, typ string, u Unit) {
	c, breakUnit := u.Setup(t)
	instances := []collectors.Instance{{Name: typ, Type: typ, Collector: c}}
	if typ != "records" {
		instances = append(instances, collectors.Instance{Name: "plans", Type: "records", Collector: planSource{}})
	}
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	store, err := history.Open(ctx, history.Config{Path: filepath.Join(t.TempDir(), "history.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	run := func(now time.Time) *model.Report {
		sel := correlate.MustSelector()
		est, err := audit.Collect(ctx, instances, sel, 0, now)
		if err != nil {
			t.Fatalf("collect: %v", err)
		}
		a, err := audit.EvaluateWith(ctx, est, sel, eng, now, store)
		if err != nil {
			t.Fatalf("evaluate: %v", err)
		}
		if err := store.Record(ctx, a.Report); err != nil {
			t.Fatalf("history: %v", err)
		}
		return a.Report
	}

	r1 := run(Now)
	if !r1.Summary.Complete {
		t.Fatalf("run 1 should answer fully; coverage: %+v", r1.Coverage)
	}
	if !readsAt(coverageOf(r1, typ), u.Scope) {
		t.Errorf("run 1: %s says nothing of what it read (sink.AddRead at that scope or below); reads: %+v",
			model.Unit(typ, u.Scope), coverageOf(r1, typ).Reads)
	}
	rests := restingOn(r1, typ, u.Scope)
	if len(rests) == 0 {
		t.Fatalf("run 1 has no finding resting on %s: the fixture must tie machinery to %s there (findings: %s)",
			model.Unit(typ, u.Scope), BackfillID, ruleIDs(r1.Findings))
	}
	gh1 := github.Simulate(nil, r1)

	breakUnit()
	r2 := run(Now.Add(time.Hour))
	gh2 := github.Simulate(gh1, r2)

	if r2.Summary.Complete {
		t.Errorf("run 2: summary.complete is true though %s failed (exit would not be 3)", model.Unit(typ, u.Scope))
	}
	if model.AnswersOf(r2.Coverage).Answered(typ, u.Scope) {
		t.Errorf("run 2: %s still counts as answered; coverage: %+v", model.Unit(typ, u.Scope), coverageOf(r2, typ))
	}
	resolved := map[string]bool{}
	if r2.History != nil {
		for _, f := range r2.History.Resolved {
			resolved[f.Fingerprint] = true
		}
	}
	// Nothing but the unit changes between the runs, so nothing at all may
	// resolve: this also catches a collector that puts artifacts at a scope
	// too broad (or too narrow) for restingOn to see them under the unit.
	for _, f := range r1.Findings {
		if resolved[f.Fingerprint] && !restsOn(rests, f.Fingerprint) {
			t.Errorf("history resolved %s %s (%s) though only %s changed between the runs (it did not answer)",
				f.RuleID, f.ArtifactURI, f.Fingerprint, model.Unit(typ, u.Scope))
		}
		if gh2.Ticked(f.Fingerprint) && !restsOn(rests, f.Fingerprint) {
			t.Errorf("GitHub ticked %s %s though only %s changed between the runs (it did not answer)",
				f.RuleID, f.ArtifactURI, model.Unit(typ, u.Scope))
		}
	}
	backfills := map[model.BackfillID]bool{}
	for _, f := range rests {
		if resolved[f.Fingerprint] {
			t.Errorf("history resolved %s %s (%s) though %s did not answer", f.RuleID, f.ArtifactURI, f.Fingerprint, model.Unit(typ, u.Scope))
		}
		if gh2.Ticked(f.Fingerprint) {
			t.Errorf("GitHub ticked %s %s though %s did not answer", f.RuleID, f.ArtifactURI, model.Unit(typ, u.Scope))
		}
		if f.BackfillID != "" {
			backfills[model.ParseID(f.BackfillID)] = true
		}
	}
	for id := range backfills {
		open1, _ := gh1.Open(string(id))
		if open2, _ := gh2.Open(string(id)); open1 && !open2 {
			t.Errorf("GitHub closed the issue of %s though %s did not answer", id, model.Unit(typ, u.Scope))
		}
		l1, l2 := lifecycleOf(r1, id), lifecycleOf(r2, id)
		if l1 == nil || l2 == nil {
			if l1 != nil {
				t.Errorf("%s vanished from the report of run 2", id)
			}
			continue
		}
		if l2.Reached > l1.Reached || (l2.Done && !l1.Done) || (!l1.Done && l2.Next != l1.Next) {
			t.Errorf("lifecycle of %s moved from %s (next %s) to %s (next %s) though %s did not answer",
				id, l1.Reached, l1.Next, l2.Reached, l2.Next, model.Unit(typ, u.Scope))
		}
	}
}

func restsOn(rests []model.Finding, fp string) bool {
	for _, f := range rests {
		if f.Fingerprint == fp {
			return true
		}
	}
	return false
}

// restingOn lists run 1's findings that rest on the unit: found in it, or
// about a backfill it describes.
func restingOn(r *model.Report, source, scope string) []model.Finding {
	describes := map[model.BackfillID]bool{}
	for _, b := range r.Backfills {
		if b.Known && b.Backfill.Source.Source == source && model.ScopeWithin(b.Backfill.Source.Path, scope) {
			describes[model.ParseID(b.Backfill.ID)] = true
		}
	}
	var out []model.Finding
	for _, f := range r.Findings {
		if (f.Source == source && model.ScopeWithin(f.Scope, scope)) || describes[model.ParseID(f.BackfillID)] {
			out = append(out, f)
		}
	}
	return out
}

func lifecycleOf(r *model.Report, id model.BackfillID) *model.Lifecycle {
	for i := range r.Backfills {
		if model.ParseID(r.Backfills[i].Backfill.ID) == id && r.Backfills[i].Known {
			return &r.Backfills[i].Lifecycle
		}
	}
	return nil
}

// readsAt reports whether the source said what it read at scope or in a
// unit below it: every unit reports its reads, findings or not.
func readsAt(c model.Coverage, scope string) bool {
	for _, r := range c.Reads {
		if model.ScopeWithin(r.Scope, scope) {
			return true
		}
	}
	return false
}

func coverageOf(r *model.Report, source string) model.Coverage {
	c, _ := (&model.Estate{Coverage: r.Coverage}).CoverageFor(source)
	return c
}

func ruleIDs(fs []model.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.RuleID+" "+f.Source+"/"+f.Scope)
	}
	return strings.Join(ids, ", ")
}
