package history

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// weeklyFinding is a finding of BF-n owned by owner, numbered so each is
// its own fingerprint.
func weeklyFinding(n int, owner string, sev model.Severity) model.Finding {
	f := finding("BF005", fmt.Sprintf("BF-%d", n), fmt.Sprintf("bigquery://p/ds/tmp_%d", n), "bq", "p", sev)
	f.Owner = owner
	return f
}

// TestWeeklyOverTwelveWeeks records one run a week for 14 weeks: finding i
// (0..13) appears in week i; even findings owned by alice (team data)
// close two weeks later, those by bob (no team) five weeks later when i%3
// is 1; the rest stay open.
func TestWeeklyOverTwelveWeeks(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		teams := model.Teams{"data": {Members: []string{"Alice"}}}
		s := openStore(t, cfg, WithTeams(teams))
		cov := okCoverage("bq")
		type spec struct {
			f     model.Finding
			first int // week it appears
			gone  int // week it is gone, -1 never
		}
		var specs []spec
		for i := range 14 {
			switch {
			case i%2 == 0:
				specs = append(specs, spec{weeklyFinding(i, "alice", model.SeverityHigh), i, i + 2})
			case i%3 == 1:
				specs = append(specs, spec{weeklyFinding(i, "bob", model.SeverityMedium), i, i + 5})
			default:
				specs = append(specs, spec{weeklyFinding(i, "", model.SeverityCritical), i, -1})
			}
		}
		var last *model.Report
		for wk := range 14 {
			var fs []model.Finding
			for _, sp := range specs {
				if sp.first <= wk && (sp.gone < 0 || wk < sp.gone) {
					fs = append(fs, sp.f)
				}
			}
			r := report(day(7*wk), cov, fs...)
			r.Backfills = []model.BackfillReport{
				{Backfill: &model.Backfill{}, Known: true, Lifecycle: model.Lifecycle{Reached: model.StepNormalized}},
				{Backfill: &model.Backfill{}, Known: true, Lifecycle: model.Lifecycle{Reached: model.StepPlan}},
				{Backfill: &model.Backfill{}, Known: false, Lifecycle: model.Lifecycle{Reached: model.StepRetired}},
			}
			if wk == 13 {
				for i := range r.Findings {
					r.Findings[i].DueAt, r.Findings[i].Overdue = day(0), true
				}
			}
			last = record(t, s, r)
			if wk == 0 && last.History.Weekly != nil {
				t.Errorf("first run: Weekly = %+v, want none with one run", last.History.Weekly)
			}
		}
		w := last.History.Weekly
		if w == nil {
			t.Fatal("Weekly nil after 14 runs")
		}
		if len(w.Weeks) != 12 {
			t.Fatalf("Weeks = %d, want 12", len(w.Weeks))
		}
		// day(0) is Monday 2026-03-02, ISO week 10; the last run is in week 23.
		if w.Weeks[0].Week != "2026-W12" || w.Weeks[11].Week != "2026-W23" {
			t.Errorf("Weeks span %s..%s, want 2026-W12..2026-W23", w.Weeks[0].Week, w.Weeks[11].Week)
		}
		if !w.Weeks[11].Start.Equal(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("last week starts %s, want Monday 2026-06-01", w.Weeks[11].Start)
		}
		for k, p := range w.Weeks {
			wk := k + 2
			var open, news, resolved int
			for _, sp := range specs {
				if sp.first <= wk && (sp.gone < 0 || wk < sp.gone) {
					open++
				}
				if sp.first == wk {
					news++
				}
				if sp.gone == wk {
					resolved++
				}
			}
			if p.Open != open || p.New != news || p.Resolved != resolved {
				t.Errorf("%s: open/new/resolved = %d/%d/%d, want %d/%d/%d", p.Week, p.Open, p.New, p.Resolved, open, news, resolved)
			}
		}
		if got := w.Weeks[11].BySeverity; got["high"] != 1 || got["critical"] != 4 || got["medium"] != 1 {
			t.Errorf("last week by severity = %v, want 1 high, 4 critical, 1 medium", got)
		}

		// Oldest: bob's finding 1 resolved in week 6, critical 3 (week 3) is
		// the oldest still open; 6 are open.
		if len(w.Oldest) != 6 || w.Oldest[0].RuleID != "BF005" || w.Oldest[0].BackfillID != "BF-3" ||
			w.Oldest[0].AgeDays != 70 || w.Oldest[0].Severity != model.SeverityCritical {
			t.Errorf("Oldest = %+v, want 6 with BF-3 (70 days, critical) first", w.Oldest)
		}
		// alice closes in 14 days; bob in 35; within the 12 weeks alice's
		// closes are of findings 0..10 resolved weeks 2..12 (6 of them;
		// finding 12 goes in week 14, never recorded), bob's of 1 and 7.
		wantOwners := []model.CloseTime{{Name: "bob", Closed: 2, MedianDays: 35}, {Name: "alice", Closed: 6, MedianDays: 14}}
		if fmt.Sprint(w.CloseByOwner) != fmt.Sprint(wantOwners) {
			t.Errorf("CloseByOwner = %+v, want %+v", w.CloseByOwner, wantOwners)
		}
		wantTeams := []model.CloseTime{{Name: "data", Closed: 6, MedianDays: 14}}
		if fmt.Sprint(w.CloseByTeam) != fmt.Sprint(wantTeams) {
			t.Errorf("CloseByTeam = %+v, want %+v", w.CloseByTeam, wantTeams)
		}
		wantFunnel := "[{plan 2} {verified 1} {normalized 1} {access revoked 0} {archived 0} {retired 0}]"
		if fmt.Sprint(w.Funnel) != wantFunnel {
			t.Errorf("Funnel = %v, want %s", w.Funnel, wantFunnel)
		}
		// The due policy decides which findings stay overdue; count those.
		wantOverdue := map[string]int{}
		for _, f := range last.Findings {
			if f.Overdue && !f.Waived() {
				wantOverdue[map[string]string{"alice": "data"}[f.Owner]]++
			}
		}
		gotOverdue := map[string]int{}
		for _, c := range w.OverdueByTeam {
			name := c.Team
			if name == "(no team)" {
				name = ""
			}
			gotOverdue[name] = c.Count
		}
		if len(wantOverdue) == 0 || fmt.Sprint(gotOverdue) != fmt.Sprint(wantOverdue) {
			t.Errorf("OverdueByTeam = %v, want %v (\"\" for no team)", w.OverdueByTeam, wantOverdue)
		}
	})
}

// TestWeeklyPreviewMatchesRecord checks a dry run shows the weekly review
// the real run stores.
func TestWeeklyPreviewMatchesRecord(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		cov := okCoverage("gcp", "bq")
		record(t, s, report(day(0), cov, grant, table))
		p := report(day(7), cov, grant)
		if err := s.Preview(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		r := record(t, s, report(day(7), cov, grant))
		if p.History.Weekly == nil || fmt.Sprint(*p.History.Weekly) != fmt.Sprint(*r.History.Weekly) {
			t.Errorf("Preview weekly = %+v, Record = %+v", p.History.Weekly, r.History.Weekly)
		}
		if len(r.History.Weekly.Weeks) != 2 || r.History.Weekly.Weeks[1].Resolved != 1 {
			t.Errorf("Weeks = %+v, want two with the table resolved in the second", r.History.Weekly.Weeks)
		}
		if len(r.History.Weekly.CloseByTeam) != 0 {
			t.Errorf("CloseByTeam = %+v, want none without teams", r.History.Weekly.CloseByTeam)
		}
	})
}

func TestOverdueByTeam(t *testing.T) {
	teams := model.Teams{"data": {Members: []string{"alice"}}, "web": {Members: []string{"carol"}}}
	od := func(owner string) model.Finding { return model.Finding{Owner: owner, Overdue: true} }
	waived := od("carol")
	waived.Waiver = &model.Waiver{Reason: "ok"}
	got := overdueByTeam([]model.Finding{od("alice"), od("ALICE"), od("carol"), od(""), od("zed"), waived, {Owner: "alice"}}, teams)
	want := "[{(no team) 2} {data 2} {web 1}]"
	if fmt.Sprint(got) != want {
		t.Errorf("overdueByTeam = %v, want %s", got, want)
	}
	if got := overdueByTeam(nil, nil); got != nil {
		t.Errorf("overdueByTeam(nil) = %v, want nil", got)
	}
}

func TestMedianOddEvenEmpty(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 2, 3}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// Oldest open items list the most severe first, then the oldest: twelve
// lows first seen on day 0 do not push out a critical seen on day 3, and
// among equals the order is by age then fingerprint.
func TestWeeklyOldestMostSevereFirst(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		cov := okCoverage("bq")
		var fs []model.Finding
		for i := range 12 {
			fs = append(fs, weeklyFinding(i, "", model.SeverityLow))
		}
		record(t, s, report(day(0), cov, fs...))
		fs = append(fs, weeklyFinding(100, "", model.SeverityCritical), weeklyFinding(101, "", model.SeverityMedium))
		record(t, s, report(day(3), cov, fs...))
		last := record(t, s, report(day(4), cov, fs...))
		w := last.History.Weekly
		if w == nil || len(w.Oldest) != weeklyOldest {
			t.Fatalf("Weekly = %+v, want %d oldest", w, weeklyOldest)
		}
		if w.Oldest[0].BackfillID != "BF-100" || w.Oldest[1].BackfillID != "BF-101" {
			t.Errorf("Oldest starts %+v, %+v; want the critical BF-100, then the medium BF-101", w.Oldest[0], w.Oldest[1])
		}
		for i := 3; i < len(w.Oldest); i++ {
			if a, b := w.Oldest[i-1], w.Oldest[i]; a.Severity == b.Severity && a.Fingerprint > b.Fingerprint {
				t.Errorf("lows of one age out of fingerprint order: %s before %s", a.Fingerprint, b.Fingerprint)
			}
		}
	})
}
