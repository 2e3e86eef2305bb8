package history

import (
	"context"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
)

// A finding first seen on day 0 under a 7-day policy is due on day 7 on
// every later run, and overdue from day 7 on.
func TestDueKeptAcrossRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		cov := okCoverage("gcp")
		want := day(7)
		for d := 0; d <= 20; d++ {
			r := record(t, s, report(day(d), cov, grant)) // high: 7d by default
			f := r.Findings[0]
			if !f.DueAt.Equal(want) {
				t.Fatalf("day %d: due %s, want %s", d, f.DueAt, want)
			}
			if f.Overdue != (d >= 7) {
				t.Errorf("day %d: overdue %v", d, f.Overdue)
			}
			if len(r.History.DueChanges) != 0 {
				t.Errorf("day %d: due changes %v, want none", d, r.History.DueChanges)
			}
		}
		st, ok, err := s.DueOf(context.Background(), grant.Fingerprint)
		if err != nil || !ok || !st.DueAt.Equal(want) || !st.Since.Equal(day(0)) || st.Rule.String() != "severity high 7d" {
			t.Errorf("DueOf = %+v %v %v, want since day 0, due day 7, severity high 7d", st, ok, err)
		}
	})
}

// A second Open with another policy recomputes from the first sighting and
// records the move; the run after keeps the new date.
func TestDuePolicyChangeRecorded(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		cov := okCoverage("gcp")
		s := openStore(t, cfg)
		record(t, s, report(day(0), cov, grant))
		s.Close()

		p := due.DefaultPolicy()
		p.Rules = map[string]time.Duration{"BF003": 3 * due.Day}
		s2 := openStore(t, cfg, WithDue(p))
		// Due (before the sinks) shows what Record will store.
		pre := report(day(1), cov, grant)
		if err := s2.Due(context.Background(), pre); err != nil {
			t.Fatal(err)
		}
		if !pre.Findings[0].DueAt.Equal(day(3)) {
			t.Errorf("Due: due %s, want day 3", pre.Findings[0].DueAt)
		}
		r := record(t, s2, report(day(1), cov, grant))
		if !r.Findings[0].DueAt.Equal(day(3)) {
			t.Fatalf("due %s, want day 3 (first seen day 0 + 3d)", r.Findings[0].DueAt)
		}
		if len(r.History.DueChanges) != 1 {
			t.Fatalf("due changes %v, want one", r.History.DueChanges)
		}
		want := "due date moved from 2026-03-09 to 2026-03-05: policy changed (severity high 7d -> rule BF003 3d)"
		if got := r.History.DueChanges[0].String(); got != want {
			t.Errorf("change reads %q, want %q", got, want)
		}
		stored, err := s2.DueChanges(context.Background(), day(0), day(1))
		if err != nil || len(stored) != 1 || stored[0].Reason != due.ReasonPolicy || !stored[0].To.Equal(day(3)) {
			t.Errorf("stored changes %+v %v", stored, err)
		}
		r = record(t, s2, report(day(2), cov, grant))
		if !r.Findings[0].DueAt.Equal(day(3)) || len(r.History.DueChanges) != 0 {
			t.Errorf("next run: due %s changes %v, want day 3 and none", r.Findings[0].DueAt, r.History.DueChanges)
		}
	})
}

// A waived finding shows no due date; when the waiver ends, it gets the
// full period from then.
func TestDueWaiverEndsRestartsClock(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		cov := okCoverage("gcp")
		record(t, s, report(day(0), cov, grant))
		w := grant
		w.Waiver = &model.Waiver{Reason: "kept", Origin: "config"}
		r := record(t, s, report(day(2), cov, w))
		if f := r.Findings[0]; !f.DueAt.IsZero() || f.Overdue {
			t.Errorf("waived: due %s overdue %v, want none", f.DueAt, f.Overdue)
		}
		r = record(t, s, report(day(10), cov, grant))
		if f := r.Findings[0]; !f.DueAt.Equal(day(17)) || f.Overdue {
			t.Errorf("waiver ended on day 10: due %s overdue %v, want day 17", f.DueAt, f.Overdue)
		}
		ch, err := s.DueChanges(context.Background(), day(0), day(10))
		if err != nil || len(ch) != 2 || ch[0].Reason != due.ReasonWaived || ch[1].Reason != due.ReasonWaiverEnded {
			t.Errorf("changes %+v %v, want waived then waiver ended", ch, err)
		}
	})
}

// Findings recorded before the due dates existed start from their first
// sighting; a classification shortens the period.
func TestDueFromFirstSeenAndClassification(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		cov := okCoverage("gcp", "bq")
		r := report(day(0), cov, grant, table)
		record(t, s, r)
		// Forget the due dates, as a store migrated from version 4 would.
		if _, err := s.db.Exec(`DELETE FROM finding_due`); err != nil {
			t.Fatal(err)
		}
		p := due.DefaultPolicy()
		p.Classifications = map[model.Classification]time.Duration{model.ClassFinancial: 5 * due.Day}
		s.policy = p
		r = report(day(4), cov, grant, table)
		r.Backfills = []model.BackfillReport{{Backfill: &model.Backfill{ID: "BF-1", Classification: model.ClassFinancial}}}
		record(t, s, r)
		if g := r.Findings[0]; !g.DueAt.Equal(day(5)) {
			t.Errorf("grant: due %s, want day 5 (first seen day 0, financial 5d shorter than high 7d)", g.DueAt)
		}
		if tb := r.Findings[1]; !tb.DueAt.Equal(day(5)) {
			t.Errorf("table: due %s, want day 5 (financial 5d shorter than medium 14d)", tb.DueAt)
		}
	})
}
