package history

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// A finding about a backfill also rests on the source that describes the
// backfill (its plan or record), and a finding on no artifact (a verdict on
// the whole backfill, e.g. "expired and still running") on every source:
// when those fail the finding disappears from the run, but it is not gone.
func TestRecordDoesNotResolveWhatRestsOnAFailedSource(t *testing.T) {
	plan := model.Location{Source: "plans", Path: "plans/bf-1.yaml", Line: 3}
	job := finding("BF001", "BF-1", "airflow://sched/dags/bf_1", "scheduler", "dags", model.SeverityMedium)
	expired := finding("BF015", "BF-1", "", "plans", "plans/bf-1.yaml", model.SeverityHigh)
	withPlan := func(r *model.Report) *model.Report {
		r.Backfills = []model.BackfillReport{{Backfill: &model.Backfill{ID: "BF-1", Source: plan}, Known: true}}
		return r
	}
	failed := func(name string) model.Coverage {
		return model.Coverage{Source: name, System: name, Status: model.CoverageFailed, Error: "down"}
	}
	ok := func(name string) model.Coverage {
		return model.Coverage{Source: name, System: name, Status: model.CoverageOK}
	}
	cases := []struct {
		name     string
		gone     model.Finding
		coverage []model.Coverage
		resolved bool
	}{
		{"job finding, plans failed", job, []model.Coverage{failed("plans"), ok("scheduler")}, false},
		{"job finding, plan file failed", job, []model.Coverage{ok("scheduler"), {Source: "plans", Status: model.CoverageDegraded,
			Errors: []model.ScopeError{{Scope: "plans/bf-1.yaml", Error: "unreadable"}}}}, false},
		{"job finding, every source answered", job, []model.Coverage{ok("plans"), ok("scheduler")}, true},
		{"backfill verdict, scheduler failed", expired, []model.Coverage{ok("plans"), failed("scheduler")}, false},
		{"backfill verdict, every source answered", expired, []model.Coverage{ok("plans"), ok("scheduler")}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eachBackend(t, func(t *testing.T, cfg Config) {
				s := openStore(t, cfg)
				record(t, s, withPlan(report(day(0), []model.Coverage{ok("plans"), ok("scheduler")}, tc.gone)))
				// This run knows nothing of BF-1 when plans failed.
				r := report(day(1), tc.coverage)
				if tc.resolved {
					r = withPlan(r)
				}
				r = record(t, s, r)
				if got := len(r.History.Resolved) == 1; got != tc.resolved {
					t.Fatalf("%s resolved = %v, want %v", tc.gone.RuleID, got, tc.resolved)
				}
				if open := r.History.Trend[len(r.History.Trend)-1].Findings; open != map[bool]int{true: 0, false: 1}[tc.resolved] {
					t.Errorf("trend counts %d open", open)
				}
			})
		})
	}
}

// Rows stored before schema version 2 do not say where their backfill is
// described (migration 0002 marks them); an incomplete run does not resolve
// them, a complete one does.
func TestRecordKeepsLegacyRowsOfAVanishedBackfill(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		job := finding("BF001", "BF-1", "airflow://sched/dags/bf_1", "scheduler", "dags", model.SeverityMedium)
		orphan := finding("BF011", "", "bigquery://p/ds/t", "scheduler", "dags", model.SeverityMedium)
		record(t, s, report(day(0), okCoverage("plans", "scheduler"), job, orphan))
		// What migration 0002 does to rows written by version 1.
		if _, err := s.db.Exec(`UPDATE findings SET backfill_source = '*' WHERE backfill_id <> ''`); err != nil {
			t.Fatal(err)
		}
		incomplete := []model.Coverage{{Source: "plans", Status: model.CoverageFailed}, okCoverage("scheduler")[0]}
		r := record(t, s, report(day(1), incomplete))
		if got := fingerprints(r.History.Resolved); len(got) != 1 || got[0] != orphan.Fingerprint {
			t.Errorf("resolved %v while the plans source failed, want only the finding on no backfill", got)
		}
		r = record(t, s, report(day(2), okCoverage("plans", "scheduler")))
		if got := fingerprints(r.History.Resolved); len(got) != 1 || got[0] != job.Fingerprint {
			t.Errorf("complete run resolved %v, want the job finding", got)
		}
	})
}
