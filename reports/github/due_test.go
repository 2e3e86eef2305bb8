package github

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Each open item says when it is due and how long is left, in whole days;
// past its due date it says by how much, in bold.
func TestChecklistItemShowsTimeLeft(t *testing.T) {
	r, err := newRenderer(DefaultTitleTemplate, DefaultBodyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	mk := func(rule string, dueAt time.Time, waived bool) item {
		f := model.Finding{RuleID: rule, Title: rule + " title", Severity: model.SeverityHigh, BackfillID: "BF-7",
			Fingerprint: model.Fingerprint(rule, "BF-7", ""), DueAt: dueAt}
		if waived {
			f.Waiver = &model.Waiver{Reason: "kept"}
		}
		return item{FP: f.Fingerprint, State: stateOpen, Rule: rule, Severity: "high", Title: f.Title, Step: model.StepRetired, finding: &f}
	}
	items := []item{
		mk("BF003", now.Add(3*24*time.Hour+time.Hour), false),
		mk("BF005", now.Add(-2*24*time.Hour-time.Hour), false),
		mk("BF006", now.Add(5*24*time.Hour), true),
	}
	items[2].State = stateWaived
	br := &model.BackfillReport{Backfill: model.Backfill{ID: "BF-7"}}
	v, err := view("BF-7", now, br, "", "", false, DefaultWaiverLabel, DefaultAcceptDays, items, nil, marker{Backfill: "BF-7"})
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := r.render(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**BF003** (high) BF003 title · due in 3d (by 2026-12-04)\n",
		"**BF005** (high) BF005 title · **overdue by 2d** (due 2026-11-29)\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "2026-12-06") {
		t.Errorf("a waived item shows a due date:\n%s", body)
	}
	// An hour later the body is the same: it changes once a day.
	v2, _ := view("BF-7", now.Add(time.Hour), br, "", "", false, DefaultWaiverLabel, DefaultAcceptDays, items, nil, marker{Backfill: "BF-7"})
	if _, body2, _ := r.render(v2); body2 != body {
		t.Errorf("the body changed within the day")
	}
}
