package due

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

var day0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func finding(rule string, sev model.Severity) model.Finding {
	return model.Finding{RuleID: rule, Severity: sev, Fingerprint: "fp-" + rule, BackfillID: "BF-1"}
}

func TestPolicyPrecedence(t *testing.T) {
	p := DefaultPolicy()
	p.Rules = map[string]time.Duration{"BF003": 3 * Day, "BF010": 20 * Day, "BF011": 0}
	p.Classifications = map[model.Classification]time.Duration{model.ClassFinancial: 5 * Day}
	cases := []struct {
		name  string
		f     model.Finding
		class model.Classification
		want  string
	}{
		{"severity default", finding("BF001", model.SeverityHigh), "", "severity high 7d"},
		{"critical", finding("BF001", model.SeverityCritical), "", "severity critical 2d"},
		{"info has none", finding("BF001", model.SeverityInfo), "", "severity info none"},
		{"rule overrides severity, shorter", finding("BF003", model.SeverityHigh), "", "rule BF003 3d"},
		{"rule overrides severity, longer", finding("BF010", model.SeverityHigh), "", "rule BF010 20d"},
		{"rule set to none", finding("BF011", model.SeverityCritical), model.ClassFinancial, "rule BF011 none"},
		{"classification shorter wins", finding("BF001", model.SeverityHigh), model.ClassFinancial, "classification financial 5d"},
		{"rule shorter than classification wins", finding("BF003", model.SeverityHigh), model.ClassFinancial, "rule BF003 3d"},
		{"classification longer than severity loses", finding("BF001", model.SeverityCritical), model.ClassFinancial, "severity critical 2d"},
		{"classification adds no due date to info", finding("BF001", model.SeverityInfo), model.ClassFinancial, "severity info none"},
		{"other classification", finding("BF001", model.SeverityHigh), model.ClassCustomer, "severity high 7d"},
	}
	for _, c := range cases {
		if got := p.For(c.f, c.class).String(); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestNextKeepsDueAcrossRuns(t *testing.T) {
	p := DefaultPolicy()
	f := finding("BF001", model.SeverityHigh)
	s := Start(day0, f, p.For(f, ""))
	want := day0.Add(7 * Day)
	for d := 1; d <= 20; d++ {
		now := day0.Add(time.Duration(d) * Day)
		var ch *Change
		s, ch = Next(s, false, f, p.For(f, ""), now)
		if ch != nil || !s.DueAt.Equal(want) {
			t.Fatalf("day %d: due %s change %v, want %s unchanged", d, s.DueAt, ch, want)
		}
		g := f
		Apply(&g, s, now)
		if g.Overdue != (d >= 7) {
			t.Errorf("day %d: overdue %v", d, g.Overdue)
		}
	}
}

func TestNextPolicyChangeRecomputesFromSince(t *testing.T) {
	f := finding("BF003", model.SeverityHigh)
	p := DefaultPolicy()
	s := Start(day0, f, p.For(f, ""))
	p.Rules = map[string]time.Duration{"BF003": 3 * Day}
	next, ch := Next(s, false, f, p.For(f, ""), day0.Add(Day))
	if !next.DueAt.Equal(day0.Add(3*Day)) || ch == nil {
		t.Fatalf("due %s change %v, want day 3 with a change", next.DueAt, ch)
	}
	if got, want := ch.String(), "due date moved from 2026-12-08 to 2026-12-04: policy changed (severity high 7d -> rule BF003 3d)"; got != want {
		t.Errorf("change reads %q, want %q", got, want)
	}
	// The same period from another source moves nothing.
	p.Rules = nil
	p.Severity[model.SeverityHigh] = 3 * Day
	again, ch := Next(next, false, f, p.For(f, ""), day0.Add(2*Day))
	if ch != nil || !again.DueAt.Equal(next.DueAt) {
		t.Errorf("same period: due %s change %v", again.DueAt, ch)
	}
}

func TestNextWaiverHidesThenRestarts(t *testing.T) {
	p := DefaultPolicy()
	f := finding("BF001", model.SeverityHigh)
	s := Start(day0, f, p.For(f, ""))
	w := f
	w.Waiver = &model.Waiver{Reason: "kept"}
	s, ch := Next(s, false, w, p.For(w, ""), day0.Add(Day))
	if ch == nil || ch.Reason != ReasonWaived {
		t.Fatalf("waiving: change %v", ch)
	}
	Apply(&w, s, day0.Add(10*Day))
	if !w.DueAt.IsZero() || w.Overdue {
		t.Errorf("waived finding shows due %s overdue %v", w.DueAt, w.Overdue)
	}
	ended := day0.Add(20 * Day)
	s, ch = Next(s, false, f, p.For(f, ""), ended)
	if ch == nil || ch.Reason != ReasonWaiverEnded || !s.DueAt.Equal(ended.Add(7*Day)) {
		t.Fatalf("waiver ended: due %s change %v", s.DueAt, ch)
	}
}

func TestNextReopenRestarts(t *testing.T) {
	p := DefaultPolicy()
	f := finding("BF001", model.SeverityCritical)
	s := Start(day0, f, p.For(f, ""))
	back := day0.Add(30 * Day)
	s, ch := Next(s, true, f, p.For(f, ""), back)
	if ch == nil || ch.Reason != ReasonReopened || !s.DueAt.Equal(back.Add(2*Day)) {
		t.Fatalf("reopened: due %s change %v", s.DueAt, ch)
	}
}

func TestOverdueAtDueExactly(t *testing.T) {
	f := finding("BF001", model.SeverityHigh)
	s := Start(day0, f, Rule{Period: 7 * Day})
	for _, c := range []struct {
		at   time.Time
		want bool
		left string
	}{
		{s.DueAt.Add(-time.Second), false, "due in <1h"},
		{s.DueAt, true, "overdue by <1h"},
		{s.DueAt.Add(2*Day + time.Hour), true, "overdue by 2d"},
		{day0.Add(4 * Day), false, "due in 3d"},
	} {
		g := f
		Apply(&g, s, c.at)
		if g.Overdue != c.want || Left(g, c.at) != c.left {
			t.Errorf("at %s: overdue %v %q, want %v %q", c.at, g.Overdue, Left(g, c.at), c.want, c.left)
		}
	}
}

func TestStampWithoutStoreUsesClassification(t *testing.T) {
	r := &model.Report{Now: day0,
		Backfills: []model.BackfillReport{{Backfill: &model.Backfill{ID: "BF-1", Classification: model.ClassFinancial}}},
		Findings:  []model.Finding{finding("BF001", model.SeverityHigh), finding("BF002", model.SeverityInfo)}}
	p := DefaultPolicy()
	p.Classifications = map[model.Classification]time.Duration{model.ClassFinancial: 3 * Day}
	Stamp(r, p)
	if !r.Findings[0].DueAt.Equal(day0.Add(3*Day)) || !r.Findings[1].DueAt.IsZero() {
		t.Errorf("due dates %s, %s", r.Findings[0].DueAt, r.Findings[1].DueAt)
	}
	if got := Label(r.Findings[0], day0.Add(4*Day)); got != "OVERDUE 1d" {
		t.Errorf("label %q", got)
	}
	if got := Label(r.Findings[0], day0); got != "due 2026-12-04" {
		t.Errorf("label %q", got)
	}
}

func TestPeriod(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "none", 2 * Day: "2d", 36 * time.Hour: "36h", 90 * time.Minute: "1h30m"} {
		if got := Period(d); got != want {
			t.Errorf("Period(%s) = %q, want %q", d, got, want)
		}
	}
}
