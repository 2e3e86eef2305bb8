package reports

import (
	"fmt"
	"html"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// The weekly review's charts (docs/reports/weekly.md). Each carries a
// title and a description a screen reader reads, and the template puts
// the same numbers in a table under it.

// svgOpen starts an accessible chart: role img, an aria-label, <title>
// and <desc>, all escaped.
func svgOpen(sb *strings.Builder, w, h int, title, desc string) {
	t, d := html.EscapeString(title), html.EscapeString(desc)
	fmt.Fprintf(sb, `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="%s" width="%d" height="%d" viewBox="0 0 %d %d"><title>%s</title><desc>%s</desc>`,
		t, w, h, w, h, t, d)
}

// Sizes of the weekly column charts.
const colChartW, colChartH, colPad = 520, 200, 30

// weekColumns lays the weeks out: each week's x and column width.
func weekColumns(n int) (step, width int) {
	step = (colChartW - 2*colPad) / max(1, n)
	return step, max(4, step*2/3)
}

// weekLabel shortens "2026-W47" to "W47" under a column.
func weekLabel(sb *strings.Builder, x, y int, week string) {
	_, short, ok := strings.Cut(week, "-")
	if !ok {
		short = week
	}
	fmt.Fprintf(sb, `<text x="%d" y="%d" text-anchor="middle" font-size="10" font-family="sans-serif">%s</text>`, x, y, html.EscapeString(short))
}

// WeeklyOpenChart draws the open findings at each week's last run, the
// columns stacked by severity, most severe at the bottom.
func WeeklyOpenChart(w *model.Weekly) string {
	if w == nil || len(w.Weeks) == 0 {
		return ""
	}
	maxV := 1
	for _, p := range w.Weeks {
		maxV = max(maxV, p.Open)
	}
	var desc []string
	for _, p := range w.Weeks {
		desc = append(desc, fmt.Sprintf("%s: %d open (%s)", p.Week, p.Open, SeverityBrief(p.BySeverity)))
	}
	var sb strings.Builder
	svgOpen(&sb, colChartW, colChartH, "Open findings per week, by severity", strings.Join(desc, "; "))
	base := colChartH - colPad
	fmt.Fprintf(&sb, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>`, colPad, base, colChartW-colPad, base)
	step, width := weekColumns(len(w.Weeks))
	for i, p := range w.Weeks {
		x := colPad + i*step + (step-width)/2
		y := base
		for _, s := range model.Severities() {
			n := p.BySeverity[s.String()]
			if n <= 0 {
				continue
			}
			h := max(1, n*(colChartH-2*colPad)/maxV)
			y -= h
			fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"><title>%s %s: %d</title></rect>`,
				x, y, width, h, severityFill[s], html.EscapeString(p.Week), s, n)
		}
		fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="middle" font-size="10" font-family="sans-serif">%d</text>`, x+width/2, y-3, p.Open)
		weekLabel(&sb, x+width/2, colChartH-colPad+14, p.Week)
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// Colours of the new and resolved columns.
const newFill, resolvedFill = "#dc2626", "#16a34a"

// WeeklyFlowChart draws each week's new and resolved findings side by side.
func WeeklyFlowChart(w *model.Weekly) string {
	if w == nil || len(w.Weeks) == 0 {
		return ""
	}
	maxV := 1
	for _, p := range w.Weeks {
		maxV = max(maxV, p.New, p.Resolved)
	}
	var desc []string
	for _, p := range w.Weeks {
		desc = append(desc, fmt.Sprintf("%s: %d new, %d resolved", p.Week, p.New, p.Resolved))
	}
	var sb strings.Builder
	svgOpen(&sb, colChartW, colChartH, "New and resolved findings per week", strings.Join(desc, "; "))
	base := colChartH - colPad
	fmt.Fprintf(&sb, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>`, colPad, base, colChartW-colPad, base)
	step, width := weekColumns(len(w.Weeks))
	half := max(2, width/2)
	for i, p := range w.Weeks {
		x := colPad + i*step + (step-width)/2
		for j, c := range []struct {
			what string
			n    int
			fill string
		}{{"new", p.New, newFill}, {"resolved", p.Resolved, resolvedFill}} {
			h := 0
			if c.n > 0 {
				h = max(1, c.n*(colChartH-2*colPad)/maxV)
			}
			fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"><title>%s %s: %d</title></rect>`,
				x+j*half, base-h, half, h, c.fill, html.EscapeString(p.Week), c.what, c.n)
		}
		weekLabel(&sb, x+width/2, colChartH-colPad+14, p.Week)
	}
	fmt.Fprintf(&sb, `<rect x="%d" y="6" width="10" height="10" fill="%s"/><text x="%d" y="15" font-size="11" font-family="sans-serif">new</text>`, colPad, newFill, colPad+14)
	fmt.Fprintf(&sb, `<rect x="%d" y="6" width="10" height="10" fill="%s"/><text x="%d" y="15" font-size="11" font-family="sans-serif">resolved</text>`, colPad+60, resolvedFill, colPad+74)
	sb.WriteString(`</svg>`)
	return sb.String()
}

// FunnelChart draws how many known backfills reached each lifecycle step.
func FunnelChart(w *model.Weekly) string {
	if w == nil || len(w.Funnel) == 0 {
		return ""
	}
	var bars []bar
	var desc []string
	for _, c := range w.Funnel {
		bars = append(bars, bar{funnelLabel(c.Step), c.Backfills, "#4f46e5"})
		desc = append(desc, fmt.Sprintf("%s: %d", funnelLabel(c.Step), c.Backfills))
	}
	var sb strings.Builder
	svgOpen(&sb, labelW+barW+60, rowH*len(bars)+8, "Backfills per lifecycle step reached", strings.Join(desc, "; "))
	writeBars(&sb, bars)
	sb.WriteString(`</svg>`)
	return sb.String()
}

// funnelLabel names a funnel row: the plan row counts every known backfill.
func funnelLabel(s model.Step) string {
	if s == model.StepPlan {
		return "known"
	}
	return s.String()
}

// SeverityBrief writes open counts by severity compactly, most severe
// first and zeros left out: "2 crit · 5 high · 1 med"; "none" when empty.
func SeverityBrief(by map[string]int) string {
	short := map[model.Severity]string{model.SeverityCritical: "crit", model.SeverityHigh: "high",
		model.SeverityMedium: "med", model.SeverityLow: "low", model.SeverityInfo: "info"}
	var parts []string
	for _, s := range model.Severities() {
		if n := by[s.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, short[s]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " · ")
}

// lastWeeks is the newest n weeks, for the Markdown report's short table.
func lastWeeks(ws []model.WeekPoint, n int) []model.WeekPoint {
	return ws[max(0, len(ws)-n):]
}
