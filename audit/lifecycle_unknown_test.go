package audit

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// cleanEstate is BF-2001 of the quickstart, cleaned up by the book, in a
// run with the sources whose machinery a backfill leaves behind: flags,
// consumer groups, notebooks and dbt. Each answers unless named in failed.
func cleanEstate(failed string) *model.Estate {
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-2001", Origin: model.OriginPlan, Status: model.StatusRetired,
			Owner: "bob@example.com", Expiry: day("2026-12-31"), AssetsToRemove: []string{"kafka://events/groups/bf_2001_replay"}, ValidationQuery: "select 1", CleanupOwner: "bob@example.com",
			Timeline: model.Timeline{StartedAt: day("2026-10-01"), CompletedAt: day("2026-10-02")},
			Source:   model.Location{Source: "plans", Path: "plans/bf-2001.yaml"}}},
		Records: []model.DecisionRecord{{BackfillID: "BF-2001", Purpose: "p", JobID: "j", ValidationQuery: "select 1",
			ApprovingOwner: "a", FinalDataLocation: "x", ArchivedAt: day("2026-10-03"), Range: model.Interval{Start: day("2026-09-01"), End: day("2026-09-02")},
			Checkpoint: &model.CheckpointRecord{FinalRange: "orders/0=100", ReplayID: "bf_2001_replay"},
			Source:     model.Location{Source: "plans", Path: "records/bf-2001.md"}}},
		Coverage: []model.Coverage{{Source: "plans", System: "records", Status: model.CoverageOK}},
	}
	for _, s := range [][2]string{{"flags", "unleash"}, {"events", "kafka"}, {"analytics", "notebooks"}, {"warehouse-dbt", "dbt"}} {
		c := model.Coverage{Source: s[0], System: s[1], Status: model.CoverageOK, Lineage: s[1] == "dbt"}
		if s[0] == failed {
			c.Status, c.Error = model.CoverageFailed, "connection refused"
		}
		est.Coverage = append(est.Coverage, c)
	}
	return est
}

func lifecycleOf(t *testing.T, a *Audit, id string) model.Lifecycle {
	t.Helper()
	for _, b := range a.Report.Backfills {
		if b.Backfill.ID == id {
			return b.Lifecycle
		}
	}
	t.Fatalf("no %s in the report", id)
	return model.Lifecycle{}
}

// A clean backfill is done only when every source answered. With one
// silent, and no history store to say what it held, its lifecycle is
// unknown (not done, and not "open": nothing is known to be left), and
// Unknown names the source.
func TestLifecycleUnknownFromSilence(t *testing.T) {
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	if lc := lifecycleOf(t, Evaluate(cleanEstate(""), correlate.MustSelector(), eng, now), "BF-2001"); !lc.Done || lc.State() != "done" || len(lc.Unknown) != 0 {
		t.Fatalf("every source answered: want done, got %+v", lc)
	}
	for _, src := range []string{"flags", "events", "analytics", "warehouse-dbt"} {
		lc := lifecycleOf(t, Evaluate(cleanEstate(src), correlate.MustSelector(), eng, now), "BF-2001")
		if lc.Done || lc.State() != "unknown" || !slices.Equal(lc.Unknown, []string{src}) {
			t.Errorf("%s failed, no history: want state unknown naming %s, got %+v (state %s)", src, src, lc, lc.State())
		}
	}
}

// remembering is a history store that puts back what a silent unit last
// held: BF-2001's replay consumer group, seen last run in the Kafka source
// that does not answer now. Its range is recorded and it expires by
// itself, so no rule reports it; only the silence keeps the step open.
type remembering struct{}

func (remembering) Restore(_ context.Context, est *model.Estate) ([]string, error) {
	est.Artifacts = append(est.Artifacts, model.Artifact{Kind: model.KindCheckpoint, System: "kafka", Source: "events", Scope: "bf_2001_replay",
		URI: "kafka://events/groups/bf_2001_replay", Name: "bf_2001_replay", BackfillID: "BF-2001", State: model.StateActive,
		ExpiresAt:  model.At(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)),
		Attributes: model.TagsOf(map[string]string{model.AttrCheckpointType: "consumer_group", model.AttrMembers: "0", model.AttrLag: "0"})})
	return nil, nil
}
func (remembering) Carry(context.Context, *model.Report) (int, error) { return 0, nil }

// With a history store, an artifact remembered from a unit that did not
// answer keeps the step of its kind unknown: a consumer group's range is
// recorded before it is deleted, so the archived step, not only retired.
func TestLifecycleUnknownRemembered(t *testing.T) {
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	a, err := EvaluateWith(context.Background(), cleanEstate("events"), correlate.MustSelector(), eng, now, remembering{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Report.Findings {
		if f.BackfillID == "BF-2001" && f.Step != model.StepPlan {
			t.Fatalf("the case wants no cleanup finding on BF-2001, got %s %s", f.RuleID, f.Message)
		}
	}
	lc := lifecycleOf(t, a, "BF-2001")
	if lc.Done || lc.State() != "unknown" || !slices.Equal(lc.Unknown, []string{"events"}) || lc.Next != model.StepArchived {
		t.Errorf("kafka silent, its group remembered: want unknown at archived naming events, got %+v", lc)
	}
}

// A lineage source that does not answer keeps "verified" open for a
// backfill with targets, with or without history: whether the tables
// derived from them were rebuilt cannot be known, and history remembers
// machinery, not lineage. Without targets there is no downstream to ask
// about, and the silence keeps only the last step open.
func TestLifecycleSilentLineageHoldsVerified(t *testing.T) {
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	withTargets := func() *model.Estate {
		est := cleanEstate("warehouse-dbt")
		est.Backfills[0].Targets = []string{"analytics.refunds"}
		return est
	}
	for name, audit := range map[string]func() (*Audit, error){
		"no history": func() (*Audit, error) {
			return Evaluate(withTargets(), correlate.MustSelector(), eng, now), nil
		},
		"history": func() (*Audit, error) {
			return EvaluateWith(context.Background(), withTargets(), correlate.MustSelector(), eng, now, remembering{})
		},
	} {
		a, err := audit()
		if err != nil {
			t.Fatal(err)
		}
		lc := lifecycleOf(t, a, "BF-2001")
		if lc.Done || lc.State() != "unknown" || lc.Next != model.StepVerified || !slices.Contains(lc.Unknown, "warehouse-dbt") {
			t.Errorf("%s: dbt silent, targets set: want unknown at verified naming warehouse-dbt, got %+v", name, lc)
		}
	}
	lc := lifecycleOf(t, Evaluate(cleanEstate("warehouse-dbt"), correlate.MustSelector(), eng, now), "BF-2001")
	if lc.Next != model.StepRetired || lc.State() != "unknown" {
		t.Errorf("dbt silent, no targets: want unknown at retired, got %+v", lc)
	}
}

// A decision record whose file did not answer is not "missing": with the
// record unread, the archived step is unknown, naming the records source,
// and BF008 does not say there is none (a history store carries it).
func TestLifecycleUnreadRecordIsUnknown(t *testing.T) {
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	est := cleanEstate("")
	est.Records = nil
	est.Coverage[0].Status = model.CoverageDegraded
	est.Coverage[0].Errors = []model.ScopeError{{Scope: "records/bf-2001.md", Error: "not read: not a regular file (a named pipe)"}}
	a := Evaluate(est, correlate.MustSelector(), eng, now)
	lc := lifecycleOf(t, a, "BF-2001")
	if lc.Done || lc.State() != "unknown" || lc.Next != model.StepArchived || !slices.Equal(lc.Unknown, []string{"plans"}) {
		t.Errorf("record unread: want unknown at archived naming plans, got %+v (state %s)", lc, lc.State())
	}
	for _, f := range a.Report.Findings {
		if f.RuleID == "BF008" {
			t.Errorf("BF008 from a record that was not read: %s", f.Message)
		}
	}
}
