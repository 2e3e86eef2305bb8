package audit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// noMemory is a history store that remembers nothing open.
type noMemory struct{}

func (noMemory) Restore(context.Context, *model.Estate) ([]string, error) { return nil, nil }
func (noMemory) Carry(context.Context, *model.Report) (int, error)        { return 0, nil }

// A backfill cleaned up by the book is done only when every source
// answered: without a history store, a source that did not answer may hold
// its machinery, and nothing can say it does not.
func TestNotDoneFromSilence(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	estate := func(flags model.CoverageStatus) *model.Estate {
		return &model.Estate{
			Backfills: []model.Backfill{{ID: "BF-2001", Origin: model.OriginPlan, Status: model.StatusRetired,
				Owner: "bob@example.com", Expiry: day("2026-12-31"), ValidationQuery: "select 1", CleanupOwner: "bob@example.com",
				Timeline: model.Timeline{StartedAt: day("2026-10-01"), CompletedAt: day("2026-10-02")},
				Source:   model.Location{Source: "plans", Path: "plans/bf-2001.yaml"}}},
			Records: []model.DecisionRecord{{BackfillID: "BF-2001", Purpose: "p", JobID: "j", ValidationQuery: "select 1",
				ApprovingOwner: "a", FinalDataLocation: "x", ArchivedAt: day("2026-10-03"), Range: model.Interval{Start: day("2026-09-01"), End: day("2026-09-02")},
				Source: model.Location{Source: "plans", Path: "records/bf-2001.md"}}},
			Coverage: []model.Coverage{{Source: "plans", System: "records", Status: model.CoverageOK},
				{Source: "flags", System: "unleash", Status: flags, Error: map[bool]string{true: "connection refused"}[flags != model.CoverageOK]}},
		}
	}
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := day("2026-11-30")
	lifecycle := func(a *Audit) model.Lifecycle {
		for _, b := range a.Report.Backfills {
			if b.Backfill.ID == "BF-2001" {
				return b.Lifecycle
			}
		}
		t.Fatal("no BF-2001 in the report")
		return model.Lifecycle{}
	}
	if lc := lifecycle(Evaluate(estate(model.CoverageOK), correlate.MustSelector(), eng, now)); !lc.Done {
		t.Fatalf("every source answered: want done, got %+v", lc)
	}
	lc := lifecycle(Evaluate(estate(model.CoverageFailed), correlate.MustSelector(), eng, now))
	if lc.Done || lc.Reached == model.StepRetired || len(lc.Blockers) == 0 || !strings.Contains(lc.Blockers[0], "source flags did not answer") {
		t.Errorf("unleash failed, no history: want not retired, blocked by the silent source; got %+v", lc)
	}
	a, err := EvaluateWith(context.Background(), estate(model.CoverageFailed), correlate.MustSelector(), eng, now, noMemory{})
	if err != nil {
		t.Fatal(err)
	}
	if lc := lifecycle(a); !lc.Done {
		t.Errorf("unleash failed, a history store with nothing open there: want done, got %+v", lc)
	}
}
