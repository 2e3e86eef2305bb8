package reports

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// urgentReport is BF-1234 as the quickstart shows it: the plan says
// verified, a rebuild blocks the verified step, and critical access
// findings are open, one of them overdue. Report order (and fingerprint
// order) puts the not-overdue critical and the medium first.
func urgentReport() *model.Report {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	f := func(fp, rule string, sev model.Severity, step model.Step, dueAt time.Time, team, msg string) model.Finding {
		return model.Finding{Fingerprint: fp, RuleID: rule, Severity: sev, Step: step, BackfillID: "BF-1234",
			Owner: "alice", Team: team, DueAt: dueAt, Overdue: !dueAt.IsZero() && !now.Before(dueAt), Message: msg}
	}
	return &model.Report{
		Version: model.ReportVersion, Tool: "bfaudit", Now: now,
		Summary: model.Summary{Backfills: 2, Findings: 4, BySeverity: map[string]int{"critical": 2, "high": 1, "medium": 1}},
		Backfills: []model.BackfillReport{
			{Backfill: &model.Backfill{ID: "BF-1234", Status: model.StatusVerified, Owner: "alice"}, Known: true, Findings: 4,
				Lifecycle: model.Lifecycle{Reached: model.StepPlan, Next: model.StepVerified, Blockers: []string{"BF024 int_orders needs a dbt rebuild"}}},
			{Backfill: &model.Backfill{ID: "BF-9", Status: model.StatusReplayed, Owner: "bob"}, Known: true,
				Lifecycle: model.Lifecycle{Reached: model.StepAccessRevoked, Next: model.StepArchived, Blockers: []string{"decision record not archived", "BF009 lacks a field"}}},
		},
		Findings: []model.Finding{
			f("0001", "BF003", model.SeverityCritical, model.StepAccessRevoked, now.AddDate(0, 0, 2), "data", "grant still in force"),
			f("0002", "BF024", model.SeverityMedium, model.StepVerified, time.Time{}, "data", "int_orders needs a dbt rebuild"),
			f("0003", "BF004", model.SeverityCritical, model.StepAccessRevoked, now.AddDate(0, 0, -3), "data", "key still valid"),
			f("0004", "BF017", model.SeverityHigh, model.StepNormalized, now.AddDate(0, 0, -1), "", "flag still exists"),
		},
	}
}

func TestNextIsMostUrgentOpenItem(t *testing.T) {
	r := urgentReport()
	for _, c := range []struct{ format, want string }{
		{"table", "critical BF004, overdue by 3d: key still valid (+3 more)"},
		{"markdown", "**critical** BF004, overdue by 3d: key still valid (+3 more)"},
		{"html", `<span class="sev critical">critical</span> BF004 <strong class="overdue">overdue by 3d</strong>: key still valid</span>` + "\n<details><summary>and 3 more</summary>"},
	} {
		out := renderReport(t, c.format, r)
		row := rowOf(t, out, "BF-1234")
		if !strings.Contains(row, c.want) {
			t.Errorf("%s: BF-1234's next item is not the overdue critical:\n%s", c.format, row)
		}
		// The HTML row lists the rest folded away, after the next item.
		if next, _, _ := strings.Cut(row, "<details>"); strings.Contains(next, "rebuild") {
			t.Errorf("%s: the rebuild is shown next while criticals are open:\n%s", c.format, row)
		}
		// With nothing open, the lifecycle's next blocker is shown.
		want := "archived: decision record not archived (+1 more)"
		if c.format == "html" {
			want = "archived: decision record not archived</span>\n<details><summary>and 1 more</summary>"
		}
		if row := html.UnescapeString(rowOf(t, out, "BF-9")); !strings.Contains(row, want) {
			t.Errorf("%s: BF-9 (nothing open) does not show its next blocker:\n%s", c.format, row)
		}
	}
}

// rowOf is the line of a backfills table (text, Markdown or HTML) for id.
func rowOf(t *testing.T, out, id string) string {
	t.Helper()
	for _, marker := range []string{"\n" + id + " ", "| " + id + " |", "<tr role=\"row\">\n<td class=\"id\" role=\"cell\"><strong class=\"clamp\">" + id} {
		if i := strings.Index(out, marker); i >= 0 {
			rest := out[i+1:]
			end := "\n"
			if strings.HasPrefix(marker, "<tr") {
				end = "</tr>"
			}
			return rest[:strings.Index(rest, end)]
		}
	}
	t.Fatalf("no row for %s in:\n%s", id, out)
	return ""
}

func TestPlanStatusNeverContradictsLifecycle(t *testing.T) {
	r := urgentReport()
	for _, format := range []string{"table", "markdown", "html"} {
		row := rowOf(t, renderReport(t, format, r), "BF-1234")
		if strings.Contains(row, "not verified") {
			t.Errorf("%s: 'not verified' beside the plan's 'verified':\n%s", format, row)
		}
		if !strings.Contains(row, "0/5, plan says verified") {
			t.Errorf("%s: the plan's claim is not told as the plan's:\n%s", format, row)
		}
	}
	// A plan that claims no more than was found is not quoted.
	b := r.Backfills[1]
	if got := LifecycleLabel(b); got != "3/5 access revoked" {
		t.Errorf("label = %q, want 3/5 access revoked", got)
	}
	b.Backfill.Status, b.Lifecycle.Done, b.Lifecycle.Reached = model.StatusRetired, true, model.StepRetired
	if got := LifecycleLabel(b); got != "5/5 retired" {
		t.Errorf("label = %q, want 5/5 retired", got)
	}
}

func unknownReport() *model.Report {
	r := urgentReport()
	r.Findings = nil
	r.Backfills = []model.BackfillReport{{Backfill: &model.Backfill{ID: "BF-7", Status: model.StatusVerified, Owner: "carol"}, Known: true,
		Lifecycle: model.Lifecycle{Reached: model.StepNormalized, Next: model.StepAccessRevoked, Unknown: []string{"kafka", "jupyter"}}}}
	return r
}

func TestLifecycleUnknownShown(t *testing.T) {
	r := unknownReport()
	for _, format := range []string{"table", "markdown", "html"} {
		out := renderReport(t, format, r)
		row := rowOf(t, out, "BF-7")
		for _, want := range []string{"2/5 normalized, access revoked unknown", "access revoked unknown: kafka, jupyter did not answer"} {
			if !strings.Contains(row, want) {
				t.Errorf("%s: BF-7 lacks %q:\n%s", format, want, row)
			}
		}
		if strings.Contains(row, "done") {
			t.Errorf("%s: an unknown step reads done:\n%s", format, row)
		}
	}
	// The chart: two steps reached, the third neither reached nor open, in
	// words and a mark besides its colour.
	svg := LifecycleChart(r.Backfills[0])
	for _, want := range []string{"<title>2 normalized: reached</title>", "<title>3 access revoked: unknown</title>",
		`class="step-unknown"`, `stroke-dasharray`, ">?</text>", "<title>4 archived: not reached</title>",
		`aria-label="lifecycle: 2 of 5 steps reached, access revoked unknown (kafka, jupyter did not answer)"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("lifecycle chart lacks %q:\n%s", want, svg)
		}
	}
	if strings.Contains(svg, "#fde68a") {
		t.Error("the unknown step is drawn as open")
	}
}

func TestSummaryCountsOverdue(t *testing.T) {
	r := urgentReport()
	for _, c := range []struct{ format, want string }{
		{"table", "4 open findings, 2 overdue\n"},
		{"markdown", "decision records, **2 overdue**."},
		{"html", `<strong class="overdue">2 overdue</strong>`},
	} {
		if out := renderReport(t, c.format, r); !strings.Contains(out, c.want) {
			t.Errorf("%s summary lacks %q:\n%s", c.format, c.want, out[:min(len(out), 600)])
		}
	}
	var got struct {
		Summary struct {
			Overdue *int `json:"overdue"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(renderReport(t, "json", r)), &got); err != nil {
		t.Fatal(err)
	}
	if got.Summary.Overdue == nil || *got.Summary.Overdue != 2 {
		t.Errorf("JSON summary.overdue = %v, want 2", got.Summary.Overdue)
	}
	if r.Summary.Overdue != 0 {
		t.Error("the JSON writer changed the report it was given")
	}
	// Waived findings are never overdue, whatever their due date.
	r.Findings[2].Waiver = &model.Waiver{Reason: "accepted"}
	if n := OverdueCount(r); n != 1 {
		t.Errorf("OverdueCount with the key waived = %d, want 1", n)
	}
}

func TestWeeklyOpensWithOverdueByTeam(t *testing.T) {
	r := weeklyReport()
	u := urgentReport()
	r.Now, r.Findings = u.Now, u.Findings
	out := renderReport(t, "html", r)
	sec := out[strings.Index(out, `<section id="weekly">`):strings.Index(out, "</section>")]
	o, first := strings.Index(sec, "Overdue, by team"), strings.Index(sec, "<h3")
	if o < 0 || first < 0 || first > o || !strings.Contains(sec[:o], "<h3") {
		t.Fatalf("the weekly review does not open with what is overdue:\n%s", sec)
	}
	if old := strings.Index(sec, "Oldest open items"); old < o || strings.Index(sec, "Open findings per week") < o {
		t.Error("overdue comes after other weekly sections")
	}
	// data has the overdue critical, (no team) only a high: data first,
	// and the critical is listed by name.
	d, n := strings.Index(sec, "<bdi>data</bdi>"), strings.Index(sec, "<bdi>(no team)</bdi>")
	if d < 0 || n < 0 || d > n {
		t.Errorf("teams not ordered critical first (data at %d, no team at %d):\n%s", d, n, sec)
	}
	if !strings.Contains(sec, "Critical and overdue") || !strings.Contains(sec, "key still valid") || strings.Contains(sec, "grant still in force") {
		t.Errorf("critical overdue list wrong:\n%s", sec)
	}
	md := renderReport(t, "markdown", r)
	msec := md[strings.Index(md, "## Weekly review"):strings.Index(md, "## Backfills")]
	want := "**Overdue**, by team, most critical first: data 1 (1 crit) · (no team) 1 (1 high)."
	if i := strings.Index(msec, want); i < 0 || i > strings.Index(msec, "| week |") {
		t.Errorf("Markdown weekly review does not open with %q:\n%s", want, msec)
	}
	if !strings.Contains(msec, "- critical BF004 BF-1234 (alice): overdue by 3d") {
		t.Errorf("Markdown weekly review lacks the critical overdue item:\n%s", msec)
	}
}

func TestTableFitsWidth(t *testing.T) {
	r := urgentReport()
	r.Backfills = append(r.Backfills, model.BackfillReport{Backfill: &model.Backfill{ID: "airflow:scheduler:daily_revenue:63", Owner: "alice@example.com"},
		Known: true, Lifecycle: model.Lifecycle{Next: model.StepVerified, Blockers: []string{strings.Repeat("replay not finished ", 8)}}})
	for _, width := range []int{80, 120, 200} {
		var b strings.Builder
		if err := (&Table{Width: width}).Write(t.Context(), &b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if n, l := widest(out); n > width {
			t.Errorf("width %d: a line of %d columns:\n%s", width, n, l)
		}
		// The next item is cut to its row, but it leads with the urgent
		// finding and keeps the count of the others.
		if row := rowOf(t, out, "BF-1234"); !strings.Contains(row, "critical BF004, ") || !strings.HasSuffix(row, " (+3 more)") {
			t.Errorf("width %d: the next item lost its start or its count:\n%s", width, out)
		}
	}
	// No width, no wrapping: one line per row, as in a file.
	out := renderReport(t, "table", r)
	if row := rowOf(t, out, "airflow:scheduler:daily_revenue:63"); !strings.HasSuffix(row, "verified: "+strings.TrimSpace(strings.Repeat("replay not finished ", 8))) {
		t.Errorf("unlimited table changed:\n%s", out)
	}
}

func TestColumnsFrom(t *testing.T) {
	for v, want := range map[string]int{"": 0, "80": 80, " 200 ": 200, "abc": 0, "5": 0, "-1": 0} {
		if got := ColumnsFrom(func(string) string { return v }); got != want {
			t.Errorf("COLUMNS=%q: %d, want %d", v, got, want)
		}
	}
}

// A backfill row's "and N more" opens to its other open findings, most
// urgent first, at most maxRest; the rest are counted, not kept.
func TestRestOfBackfill(t *testing.T) {
	r := urgentReport()
	v := newView(r)
	rest := v.RestOf(r.Backfills[0])
	var got []string
	for _, f := range rest.Findings {
		got = append(got, f.RuleID)
	}
	if strings.Join(got, " ") != "BF003 BF017 BF024" || rest.Unlisted != 0 {
		t.Errorf("rest of BF-1234 = %v (+%d), want BF003 BF017 BF024", got, rest.Unlisted)
	}
	for i := range 2 * maxRest {
		f := r.Findings[1]
		f.Fingerprint = fmt.Sprintf("x%03d", i)
		r.Findings = append(r.Findings, f)
	}
	rest = newView(r).RestOf(r.Backfills[0])
	if len(rest.Findings) != maxRest || rest.Unlisted != len(r.Findings)-1-maxRest || rest.Findings[0].RuleID != "BF003" {
		t.Errorf("rest of %d open = %d listed, %d unlisted, first %s", len(r.Findings), len(rest.Findings), rest.Unlisted, rest.Findings[0].RuleID)
	}
	if rest := v.RestOf(r.Backfills[1]); len(rest.Findings) != 0 || rest.Unlisted != 0 {
		t.Errorf("BF-9 has nothing open but a rest of %v", rest)
	}
}
