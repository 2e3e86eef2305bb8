package audit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

type planSource struct{ collectors.Whole }

func (planSource) CollectUnit(_ context.Context, _ string, s collectors.Sink) error {
	s.AddBackfill(model.Backfill{ID: "BF-1", Origin: model.OriginPlan, ValidationQuery: "select 1", ValidationSource: "wh",
		AssetsToRemove: []string{"wh://t/unlabelled"}})
	s.AddBackfill(model.Backfill{ID: "BF-2", Origin: model.OriginPlan, ValidationQuery: "select 2", ValidationSource: "nowhere"})
	s.AddRead("", "plans", 1, 0)
	return nil
}

// warehouse keeps only what the selector matches, as real collectors do,
// and runs validation queries.
type warehouse struct {
	sel      *correlate.Selector
	verified []string
}

func (w *warehouse) Init(env collectors.Env) error           { w.sel = env.Selector; return nil }
func (w *warehouse) Units(context.Context) ([]string, error) { return []string{"t"}, nil }
func (w *warehouse) CollectUnit(_ context.Context, unit string, s collectors.Sink) error {
	uris := []string{"wh://t/unlabelled", "wh://t/other"}
	for _, uri := range uris {
		if _, _, ok := w.sel.Match(uri, "", nil); ok {
			s.AddArtifact(model.Artifact{URI: uri, Kind: model.KindTable})
		}
	}
	s.AddRead(unit, "tables", len(uris), 0)
	return nil
}
func (w *warehouse) Verify(_ context.Context, b model.Backfill) (*model.Validation, error) {
	w.verified = append(w.verified, b.ID)
	return &model.Validation{Query: b.ValidationQuery, Rows: 42}, nil
}

func TestCollectPlansFirstThenVerify(t *testing.T) {
	sel := correlate.MustSelector()
	wh := &warehouse{}
	if err := wh.Init(collectors.Env{Selector: sel}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	est, err := Collect(context.Background(), []collectors.Instance{
		{Name: "wh", Type: "warehouse", Collector: wh},
		{Name: "plans", Type: "records", Collector: planSource{}},
	}, sel, 2, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(est.Artifacts) != 1 || est.Artifacts[0].URI != "wh://t/unlabelled" {
		t.Errorf("the warehouse should keep the asset the plan declared (plans are read first): %+v", est.Artifacts)
	}
	if strings.Join(wh.verified, ",") != "BF-1" || est.Backfills[0].Validation == nil || est.Backfills[0].Validation.Rows != 42 {
		t.Errorf("verified %v, validation %+v", wh.verified, est.Backfills[0].Validation)
	}
	if v := est.Backfills[1].Validation; v == nil || !strings.Contains(v.Error, `"nowhere" is not a configured source`) {
		t.Errorf("unknown validation source not reported: %+v", v)
	}
}

// A waiver a sink adds (an issue closed as accepted) is reflected in the
// backfill's counts, lifecycle and the summary.
func TestRefreshAfterWaiver(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	done := now.AddDate(0, -2, 0)
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-1", Origin: model.OriginPlan, Status: model.StatusVerified, Owner: "o",
			Timeline: model.Timeline{CompletedAt: done, VerifiedAt: done}}},
		Artifacts: []model.Artifact{{URI: "mon://alert/1", Kind: model.KindAlert, BackfillID: "BF-1", State: model.StateEnabled,
			Attributes: model.TagsOf(map[string]string{model.AttrWatchesOnly: "true"})}},
		Coverage: []model.Coverage{{Source: "", Status: model.CoverageOK}},
	}
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := Evaluate(est, correlate.MustSelector(), eng, now)
	b := a.Report.Backfills[0]
	if b.Lifecycle.Next != model.StepNormalized || b.Findings == 0 {
		t.Fatalf("before: lifecycle %+v, %d findings; want blocked at normalized by the alert", b.Lifecycle, b.Findings)
	}
	open := a.Report.Summary.Findings
	for i := range a.Report.Findings {
		if a.Report.Findings[i].RuleID == "BF007" {
			a.Report.Findings[i].Waiver = &model.Waiver{Origin: "github", Reason: "accepted"}
		}
	}
	a.Refresh()
	b = a.Report.Backfills[0]
	if b.Lifecycle.Reached < model.StepNormalized || a.Report.Summary.Findings != open-1 || a.Report.Summary.Waived != 1 {
		t.Errorf("after: lifecycle %+v, summary %+v", b.Lifecycle, a.Report.Summary)
	}
}

// A finding that joins the report after it was built (a history store
// carries one from a unit that did not answer) counts in its backfill's
// lifecycle once the report is refreshed, as a waiver does.
func TestRefreshAfterACarriedFinding(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	done := now.AddDate(0, -2, 0)
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-1", Origin: model.OriginPlan, Status: model.StatusVerified, Owner: "o",
			Timeline: model.Timeline{CompletedAt: done, VerifiedAt: done}}},
		Artifacts: []model.Artifact{{URI: "mon://alert/1", Kind: model.KindAlert, BackfillID: "BF-1", State: model.StateEnabled,
			Attributes: model.TagsOf(map[string]string{model.AttrWatchesOnly: "true"})}},
		Coverage: []model.Coverage{{Source: "", Status: model.CoverageOK}},
	}
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := Evaluate(est, correlate.MustSelector(), eng, now)
	var alert model.Finding
	for i := range a.Report.Findings {
		if f := &a.Report.Findings[i]; f.RuleID == "BF007" {
			alert = *f
			f.Waiver = &model.Waiver{Origin: "github", Reason: "accepted"}
		}
	}
	a.Refresh()
	b := a.Report.Backfills[0]
	if b.Lifecycle.Reached < model.StepNormalized {
		t.Fatalf("with the alert accepted: lifecycle %+v, want past normalized", b.Lifecycle)
	}
	open := b.Findings
	carried := alert
	carried.ArtifactURI, carried.Fingerprint = "mon://alert/2", model.Fingerprint("BF007", alert.Key, "mon://alert/2")
	carried.Unread = []string{"mon"}
	a.Report.Findings = append(a.Report.Findings, carried)
	a.Refresh()
	if b := a.Report.Backfills[0]; b.Lifecycle.Next != model.StepNormalized || b.Findings != open+1 {
		t.Errorf("with a carried alert: lifecycle %+v, %d open findings; want blocked at normalized by it, %d open", b.Lifecycle, b.Findings, open+1)
	}
}
