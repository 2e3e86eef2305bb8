package history

import (
	"context"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

func runAt(at int, cov []model.Coverage, fs ...model.Finding) *model.Report {
	return &model.Report{Now: day(at), Coverage: cov, Findings: fs}
}

// An audit that runs as of an earlier time than the newest recorded run
// (two audits on one store, or an old estate re-audited with --now) never
// reopens what the newer run resolved.
func TestOlderRunChangesNoVerdict(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		ctx := context.Background()
		f := finding("BF005", "BF-1", "bq://p/d/t", "bq", "p/d", model.SeverityMedium)
		if err := s.Record(ctx, runAt(0, okCoverage("bq"), f)); err != nil {
			t.Fatal(err)
		}
		newer := runAt(2, okCoverage("bq")) // the table is gone, bq answered
		if err := s.Record(ctx, newer); err != nil {
			t.Fatal(err)
		}
		if len(newer.History.Resolved) != 1 {
			t.Fatalf("the newer run resolved %d, want 1", len(newer.History.Resolved))
		}
		older := runAt(1, okCoverage("bq"), f) // recorded late, saw the table
		if err := s.Record(ctx, older); err != nil {
			t.Fatal(err)
		}
		next := runAt(3, okCoverage("bq"))
		if err := s.Record(ctx, next); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.Carry(ctx, next); n != 0 {
			t.Errorf("carried %d", n)
		}
		open, err := s.loadRows(ctx, s.db, `resolved_at IS NULL`, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(open) != 0 {
			t.Errorf("the older run reopened %d findings the newer run resolved", len(open))
		}
	})
}

// A finding that rests on a unit that did not answer is carried, as last
// seen and naming the unit; one whose unit answered is not.
func TestCarryUnreadFindings(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		ctx := context.Background()
		inDS := finding("BF005", "BF-1", "bq://p/d/t", "bq", model.JoinScope("p", "d"), model.SeverityCritical)
		inOther := finding("BF005", "BF-1", "bq://p/e/t", "bq", model.JoinScope("p", "e"), model.SeverityMedium)
		if err := s.Record(ctx, runAt(0, okCoverage("bq"), inDS, inOther)); err != nil {
			t.Fatal(err)
		}
		cov := []model.Coverage{{Source: "bq", Status: model.CoverageDegraded,
			Errors: []model.ScopeError{{Scope: model.JoinScope("p", "d"), Error: "HTTP 500"}}}}
		r := runAt(1, cov)
		n, err := s.Carry(ctx, r)
		if err != nil || n != 1 {
			t.Fatalf("carried %d (%v), want 1", n, err)
		}
		got := r.Findings[0]
		if got.Fingerprint != inDS.Fingerprint || got.Severity != model.SeverityCritical ||
			len(got.Unread) != 1 || got.Unread[0] != "bq / p/d" || !got.LastSeen.Equal(day(0)) {
			t.Errorf("carried %+v", got)
		}
		if err := s.Record(ctx, r); err != nil {
			t.Fatal(err)
		}
		if len(r.History.Resolved) != 1 || r.History.Resolved[0].Fingerprint != inOther.Fingerprint {
			t.Errorf("resolved %+v, want only the finding whose dataset answered", r.History.Resolved)
		}
		if len(r.History.New) != 0 {
			t.Errorf("a carried finding counted as new: %v", r.History.New)
		}
	})
}

// A backfill whose plan did not answer is audited as last described.
func TestRestoreLastKnownPlan(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		ctx := context.Background()
		plan := model.Backfill{ID: "BF-1", Origin: model.OriginPlan, Purpose: "refund fix",
			Classification: model.ClassFinancial, Status: model.StatusReplayed,
			Source: model.Location{Source: "plans", Path: "plans/bf-1.yaml"}}
		r := runAt(0, okCoverage("plans"))
		r.Backfills = []model.BackfillReport{{Backfill: &plan, Known: true}}
		if err := s.Record(ctx, r); err != nil {
			t.Fatal(err)
		}
		est := &model.Estate{Coverage: []model.Coverage{{Source: "plans", Status: model.CoverageDegraded,
			Errors: []model.ScopeError{{Scope: "plans/bf-1.yaml", Error: "yaml: line 2"}}}}}
		ids, err := s.Restore(ctx, est)
		if err != nil || len(ids) != 1 || len(est.Backfills) != 1 {
			t.Fatalf("restored %v (%v), estate %+v", ids, err, est.Backfills)
		}
		b := est.Backfills[0]
		if b.Purpose != "refund fix" || b.Classification != model.ClassFinancial || !b.LastKnown.Equal(day(0)) || len(b.Notes) != 1 {
			t.Errorf("restored %+v", b)
		}
		// The plan read again, or was deleted from a directory that answered:
		// nothing is restored.
		if ids, _ := s.Restore(ctx, &model.Estate{Coverage: okCoverage("plans")}); len(ids) != 0 {
			t.Errorf("restored %v though the plans answered", ids)
		}
	})
}
