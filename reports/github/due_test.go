package github

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Each open item says the day it is due; past it, since when it is
// overdue, in bold. Dates only: the body is the same every day until an
// item falls due, so an unchanged estate costs no write.
func TestChecklistItemShowsDueDates(t *testing.T) {
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
	br := &model.BackfillReport{Backfill: &model.Backfill{ID: "BF-7"}}
	v, err := view("BF-7", now, br, "", "", false, DefaultWaiverLabel, DefaultAcceptDays, items, nil, marker{Backfill: "BF-7"})
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := r.render(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**BF003** (high) BF003 title · due 2026-12-04\n",
		"**BF005** (high) BF005 title · **overdue since 2026-11-29**\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "2026-12-06") {
		t.Errorf("a waived item shows a due date:\n%s", body)
	}
	// An hour and each day later, until BF003 falls due, the body is the
	// same; on its due date it changes, once.
	for _, later := range []time.Duration{time.Hour, 24 * time.Hour, 48 * time.Hour, 72 * time.Hour} {
		v2, _ := view("BF-7", now.Add(later), br, "", "", false, DefaultWaiverLabel, DefaultAcceptDays, items, nil, marker{Backfill: "BF-7"})
		if _, body2, _ := r.render(v2); body2 != body {
			t.Errorf("%v later the body changed, with no item falling due:\n%s", later, body2)
		}
	}
	v3, _ := view("BF-7", now.Add(4*24*time.Hour), br, "", "", false, DefaultWaiverLabel, DefaultAcceptDays, items, nil, marker{Backfill: "BF-7"})
	if _, body3, _ := r.render(v3); !strings.Contains(body3, "BF003 title · **overdue since 2026-12-04**") {
		t.Errorf("on its due date BF003 is not marked overdue:\n%s", body3)
	}
}
