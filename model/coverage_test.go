package model

import (
	"slices"
	"testing"
	"time"
)

func TestAnsweredByUnit(t *testing.T) {
	cov := Coverage{Source: "inv", Status: CoverageDegraded, Errors: []ScopeError{
		{Scope: "inventory/warehouse.yaml", Error: "yaml: line 3"},
		{Scope: JoinScope("dags", "refunds"), Error: "HTTP 500"},
		{Scope: JoinScope("/"), Error: "vhost / refused"},
	}}
	for _, tc := range []struct {
		scope string
		want  bool
	}{
		{"inventory/warehouse.yaml", false},      // the file that failed
		{"inventory/warehouse.yaml/proj", false}, // a unit under it
		{"inventory/alerts.yaml", true},          // a sibling file
		{"inventory/warehouse.yaml.bak", true},   // a prefix that is not a parent
		{"dags", true},                           // an error below does not taint the listing
		{JoinScope("dags", "refunds"), false},
		{JoinScope("dags", "refunds", "runs"), false},
		{JoinScope("dags", "refunds2"), true},
		{"%2F", false}, // vhost "/" escaped as one segment
		{JoinScope("prod"), true},
		{"", true}, // the source as a whole answered what it could
	} {
		if got := cov.Answered(tc.scope); got != tc.want {
			t.Errorf("Answered(%q) = %v, want %v", tc.scope, got, tc.want)
		}
	}
	if (Coverage{Status: CoverageFailed}).Answered("x") {
		t.Error("a failed source answered")
	}
	if (Coverage{Status: CoverageDegraded, Errors: []ScopeError{{Error: "boom"}}}).Answered("x") {
		t.Error("an error without a scope must taint the whole source")
	}
}

// One reading of a coverage entry for every caller. An empty or unknown
// status (a hand-written estate) is read as failed: the source never said
// it answered, so nothing may be concluded gone from it.
func TestCoverageState(t *testing.T) {
	scoped := []ScopeError{{Scope: "dags/refunds", Error: "HTTP 500"}}
	for _, tc := range []struct {
		name     string
		cov      Coverage
		want     CoverageStatus
		answered bool // for the unit "dags/other"
	}{
		{"ok", Coverage{Status: CoverageOK}, CoverageOK, true},
		{"degraded", Coverage{Status: CoverageDegraded, Errors: scoped}, CoverageDegraded, true},
		{"failed", Coverage{Status: CoverageFailed, Error: "refused"}, CoverageFailed, false},
		{"empty status", Coverage{}, CoverageFailed, false},
		{"empty status, errors below", Coverage{Errors: scoped}, CoverageFailed, false},
		{"unknown status", Coverage{Status: "partial"}, CoverageFailed, false},
		{"ok with errors recorded", Coverage{Status: CoverageOK, Errors: scoped}, CoverageDegraded, true},
		{"ok with a source error", Coverage{Status: CoverageOK, Error: "boom"}, CoverageDegraded, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cov
			c.Source = "airflow"
			if got := c.State(); got != tc.want {
				t.Errorf("State() = %q, want %q", got, tc.want)
			}
			if c.Full() != (tc.want == CoverageOK) || c.Failed() != (tc.want == CoverageFailed) {
				t.Errorf("Full() = %v, Failed() = %v, disagree with State() %q", c.Full(), c.Failed(), tc.want)
			}
			if got := c.Answered("dags/other"); got != tc.answered {
				t.Errorf("Answered = %v, want %v", got, tc.answered)
			}
			run := []Coverage{{Source: "plans", Status: CoverageOK}, c}
			if got := CoverageComplete(run); got != (tc.want == CoverageOK) {
				t.Errorf("CoverageComplete = %v, want %v", got, tc.want == CoverageOK)
			}
			ans := AnswersOf(run)
			if ans.All() != (tc.want == CoverageOK) || ans.Answered("airflow", "dags/other") != tc.answered {
				t.Errorf("Answers disagree: All %v, Answered %v", ans.All(), ans.Answered("airflow", "dags/other"))
			}
			if unread := ans.Unanswered(Basis{Source: "airflow", Scope: "dags/other"}); tc.want == CoverageFailed && !slices.Equal(unread, []string{"airflow"}) {
				t.Errorf("Unanswered = %q, want the whole source", unread)
			}
		})
	}
	if !CoverageComplete(nil) || AnswersOf(nil).All() {
		t.Error("a run with no source: complete (nothing failed), but not every source answered")
	}
}

func TestAnswersUnanswered(t *testing.T) {
	ans := AnswersOf([]Coverage{
		{Source: "plans", Status: CoverageDegraded, Errors: []ScopeError{{Scope: "plans/bf-1.yaml", Error: "bad"}}},
		{Source: "airflow", Status: CoverageOK},
	})
	plan := Location{Source: "plans", Path: "plans/bf-1.yaml"}
	other := Location{Source: "plans", Path: "plans/bf-2.yaml"}
	for _, tc := range []struct {
		name  string
		basis Basis
		want  []string
	}{
		{"artifact answered, plan answered", Basis{Source: "airflow", Scope: "dags/x", DescribedBy: other}, nil},
		{"artifact answered, plan did not", Basis{Source: "airflow", Scope: "dags/x", DescribedBy: plan}, []string{"plans / plans/bf-1.yaml"}},
		{"whole-backfill verdict", Basis{Source: "plans", Scope: "plans/bf-2.yaml", DescribedBy: other, Whole: true}, []string{"plans / plans/bf-1.yaml"}},
		{"unknown describer", Basis{Source: "airflow", DescribedUnknown: true}, []string{"plans / plans/bf-1.yaml"}},
		{"source that did not run", Basis{Source: "bq", Scope: "p"}, []string{"bq (did not run)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ans.Unanswered(tc.basis)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Unanswered = %q, want %q", got, tc.want)
			}
			if ans.MayResolve(tc.basis) != (len(tc.want) == 0) {
				t.Errorf("MayResolve disagrees with Unanswered")
			}
		})
	}
	if AnswersOf(nil).All() {
		t.Error("a run with no source answered for everything")
	}
}

// A backfill's description was read this run only from a plan whose unit
// answered: neither the scheduler's evidence nor a restored copy counts.
func TestAnswersDescribed(t *testing.T) {
	ans := AnswersOf([]Coverage{
		{Source: "plans", Status: CoverageDegraded, Errors: []ScopeError{{Scope: "plans/bf-1.yaml", Error: "bad"}}},
		{Source: "airflow", Status: CoverageOK},
	})
	plan := func(path string) Backfill {
		return Backfill{ID: "BF-1", Origin: OriginPlan, Source: Location{Source: "plans", Path: path}}
	}
	restored := plan("plans/bf-2.yaml")
	restored.LastKnown = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		b    Backfill
		want bool
	}{
		{"plan that answered", plan("plans/bf-2.yaml"), true},
		{"plan that did not answer", plan("plans/bf-1.yaml"), false},
		{"scheduler evidence", Backfill{ID: "BF-1", Origin: OriginScheduler, Source: Location{Source: "airflow", Path: "dags/bf_1"}}, false},
		{"last known copy", restored, false},
	} {
		if got := ans.Described(tc.b); got != tc.want {
			t.Errorf("%s: Described = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReadSummary(t *testing.T) {
	c := Coverage{Reads: []UnitRead{
		{Scope: "a", What: "dashboards", Read: 80}, {Scope: "b", What: "dashboards", Read: 5, Partial: 3},
		{Scope: "", What: "projects", Read: 1}, {Scope: "a", What: "entries", Read: 1}, {Scope: "a", What: "variables"},
		{Scope: "0", What: "skipped files", Read: 214},
	}}
	if got, want := c.ReadSummary(), "85 dashboards (3 only in part), 1 project, 1 entry, 214 skipped files"; got != want {
		t.Errorf("ReadSummary = %q, want %q", got, want)
	}
	if got := (Coverage{}).ReadSummary(); got != "" {
		t.Errorf("no reads: %q", got)
	}
	if got := (Coverage{Reads: []UnitRead{{What: "dashboards"}, {What: "alert rules"}}}).ReadSummary(); got != "0 dashboards" {
		t.Errorf("read none: %q", got)
	}
}

func TestPositionedErrorNamesItsUnit(t *testing.T) {
	for e, want := range map[ScopeError]bool{
		{Scope: "plans/x.yaml", Error: "plans/x.yaml:4: key: unknown"}: true,
		{Scope: "plans/x.yaml", Error: "open: no such file"}:           false,
		{Scope: "", Error: ":4: x"}:                                    false,
	} {
		if got := e.Positioned(); got != want {
			t.Errorf("%+v: Positioned = %v", e, got)
		}
	}
}

func TestUnitErrorsLeaveOutTheSourcesOwn(t *testing.T) {
	c := Coverage{Status: CoverageFailed, Error: "refused", Errors: []ScopeError{{Error: "refused"}, {Scope: "a", Error: "refused"}, {Error: "other"}}}
	got := c.UnitErrors()
	if len(got) != 2 || got[0].Scope != "a" || got[1].Error != "other" {
		t.Errorf("unit errors %+v; want the scoped one and the other, not the source's own", got)
	}
}
