package reports

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// hostile owner and team names: markup, right-to-left text with an
// override character, emoji and a name far wider than any column.
const (
	evilOwner = `<script>alert("owner")</script>`
	rtlOwner  = "\u202eמחלקת-נתונים"
	longOwner = "a-very-long-owner-name-that-goes-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on@example.com"
	emojiTeam = "data 🚀 <b>team</b>"
)

func weeklyReport() *model.Report {
	r := sampleReport()
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	r.History = &model.History{PreviousRun: start, Weekly: &model.Weekly{
		Weeks: []model.WeekPoint{
			{Week: "2026-W47", Start: start.AddDate(0, 0, -7), Open: 7, BySeverity: map[string]int{"critical": 2, "high": 5}, New: 7},
			{Week: "2026-W48", Start: start, Open: 4, BySeverity: map[string]int{"critical": 1, "medium": 3}, New: 2, Resolved: 5},
		},
		Oldest: []model.OldFinding{
			{Fingerprint: "aaaa", RuleID: "BF003", BackfillID: "BF-1", Owner: evilOwner, Severity: model.SeverityHigh, FirstSeen: start, AgeDays: 7},
			{Fingerprint: "bbbb", RuleID: "BF101", BackfillID: "BF-1", Owner: rtlOwner, Severity: model.SeverityMedium, FirstSeen: start, AgeDays: 7},
		},
		CloseByOwner:  []model.CloseTime{{Name: longOwner, Closed: 3, MedianDays: 12.5}, {Name: evilOwner, Closed: 1, MedianDays: 2}},
		CloseByTeam:   []model.CloseTime{{Name: emojiTeam, Closed: 4, MedianDays: 9.3}},
		Funnel:        []model.StepCount{{Step: model.StepPlan, Backfills: 1}, {Step: model.StepVerified, Backfills: 1}, {Step: model.StepNormalized}},
		OverdueByTeam: []model.TeamCount{{Team: emojiTeam, Count: 2}, {Team: "(no team)", Count: 1}},
	}}
	return r
}

func renderReport(t *testing.T, format string, r *model.Report) string {
	t.Helper()
	w, err := New(format, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := w.Write(context.Background(), &b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHTMLWeeklySection(t *testing.T) {
	out := renderReport(t, "html", weeklyReport())
	i := strings.Index(out, `<section id="weekly">`)
	if i < 0 {
		t.Fatal("HTML lacks the weekly section")
	}
	// Right after the charts, before the previous run's paragraph.
	if c, p := strings.Index(out, `<div class="charts">`), strings.Index(out, "Since the previous run"); c > i || p < i {
		t.Errorf("weekly section at %d, want after the charts (%d) and before 'Since the previous run' (%d)", i, c, p)
	}
	sec := out[i : strings.Index(out, "</section>")+len("</section>")]
	if strings.Contains(sec, "<script>") || strings.Contains(sec, "<b>team") {
		t.Error("estate text reached the weekly section unescaped")
	}
	for _, want := range []string{
		"<h2>Weekly review</h2>",
		`&lt;script&gt;alert(&#34;owner&#34;)&lt;/script&gt;`,
		"data 🚀 &lt;b&gt;team&lt;/b&gt;",
		// bdi keeps right-to-left names from reordering the row around them.
		"<bdi>" + rtlOwner + "</bdi>", longOwner,
		`role="img" aria-label="Open findings per week, by severity"`,
		"<desc>2026-W47: 7 open (2 crit · 5 high); 2026-W48: 4 open (1 crit · 3 med)</desc>",
		"<desc>2026-W47: 7 new, 0 resolved; 2026-W48: 2 new, 5 resolved</desc>",
		"<title>Backfills per lifecycle step reached</title>",
		`<div class="scroll"><table>`,
		"Oldest open items", "Time to close", "Overdue, by team",
		`<td class="num">12.5</td>`, `<td class="num">9.3</td>`,
		"<td>2026-W48</td><td>2026-11-23</td>",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("weekly section lacks %q", want)
		}
	}
	if n := strings.Count(sec, "<svg"); n != 3 {
		t.Errorf("weekly section has %d charts, want 3", n)
	}
	if n, m := strings.Count(sec, "<svg"), strings.Count(sec, "<desc>"); n != m {
		t.Errorf("%d charts but %d descriptions", n, m)
	}
}

func TestMarkdownWeeklySection(t *testing.T) {
	out := renderReport(t, "markdown", weeklyReport())
	i := strings.Index(out, "## Weekly review")
	if i < 0 {
		t.Fatalf("Markdown lacks the weekly section:\n%s", out)
	}
	sec := out[i:strings.Index(out, "## Backfills")]
	if strings.Contains(sec, "<script>") || strings.Contains(sec, "<b>") {
		t.Errorf("estate text reached the Markdown unescaped:\n%s", sec)
	}
	for _, want := range []string{
		"| 2026-W47 | 7: 2 crit · 5 high | 7 | 0 |",
		"| 2026-W48 | 4: 1 crit · 3 med | 2 | 5 |",
		"Oldest open:", "BF003 BF-1", ": 7 days",
		"Median days to close, by team: ", " 9.3 (4).",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("Markdown weekly section lacks %q:\n%s", want, sec)
		}
	}
	// Without teams, the owners' medians stand in.
	r := weeklyReport()
	r.History.Weekly.CloseByTeam = nil
	out = renderReport(t, "markdown", r)
	if !strings.Contains(out, "Median days to close, by owner: ") {
		t.Errorf("Markdown lacks the owners' medians without teams:\n%s", out)
	}
}

func TestNoWeeklySectionWithoutHistory(t *testing.T) {
	r := weeklyReport()
	r.History.Weekly = nil
	for _, rep := range []*model.Report{sampleReport(), r} {
		if out := renderReport(t, "html", rep); strings.Contains(out, `id="weekly"`) || strings.Contains(out, "Weekly review") {
			t.Error("HTML has a weekly section without a weekly review")
		}
		if out := renderReport(t, "markdown", rep); strings.Contains(out, "Weekly review") {
			t.Error("Markdown has a weekly section without a weekly review")
		}
	}
}

func TestWeeklyChartsTakeOddData(t *testing.T) {
	for _, w := range []*model.Weekly{nil, {}, {Weeks: []model.WeekPoint{{Week: "2026-W01"}}}, {Funnel: []model.StepCount{{Step: model.StepPlan}}}} {
		_ = WeeklyOpenChart(w)
		_ = WeeklyFlowChart(w)
		_ = FunnelChart(w)
	}
	if got := SeverityBrief(nil); got != "none" {
		t.Errorf("SeverityBrief(nil) = %q, want none", got)
	}
	if got := lastWeeks(nil, 6); len(got) != 0 {
		t.Errorf("lastWeeks(nil) = %v", got)
	}
}
