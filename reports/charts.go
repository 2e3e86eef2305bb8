package reports

import (
	"fmt"
	"html"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Charts are inline SVG so the HTML report needs no script or network.
// Every text from the estate is HTML-escaped before it goes in.

var severityFill = map[model.Severity]string{
	model.SeverityCritical: "#7f1d1d", model.SeverityHigh: "#dc2626",
	model.SeverityMedium: "#f59e0b", model.SeverityLow: "#0ea5e9", model.SeverityInfo: "#9ca3af",
}

type bar struct {
	label string
	value int
	fill  string
}

// barChart draws horizontal bars with labels and values.
func barChart(title string, bars []bar) string {
	h := rowH*len(bars) + 8
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>%s</title>`,
		labelW+barW+60, h, labelW+barW+60, h, html.EscapeString(title))
	writeBars(&sb, bars)
	sb.WriteString(`</svg>`)
	return sb.String()
}

// Sizes of a bar chart's rows, shared by barChart and FunnelChart.
const rowH, labelW, barW = 22, 180, 260

// writeBars draws the rows of a horizontal bar chart: label, bar, value.
func writeBars(sb *strings.Builder, bars []bar) {
	maxV := 1
	for _, b := range bars {
		maxV = max(maxV, b.value)
	}
	for i, b := range bars {
		y := i*rowH + 4
		w := 0
		if b.value > 0 {
			w = max(2, b.value*barW/maxV)
		}
		fmt.Fprintf(sb, `<text x="%d" y="%d" text-anchor="end" font-size="12" font-family="sans-serif">%s</text>`, labelW-6, y+14, html.EscapeString(truncate(b.label, 28)))
		fmt.Fprintf(sb, `<rect x="%d" y="%d" width="%d" height="16" fill="%s"/>`, labelW, y+2, w, b.fill)
		fmt.Fprintf(sb, `<text x="%d" y="%d" font-size="12" font-family="sans-serif">%d</text>`, labelW+w+6, y+14, b.value)
	}
}

// SeverityChart draws open findings by severity.
func SeverityChart(r *model.Report) string {
	var bars []bar
	for _, s := range model.Severities() {
		bars = append(bars, bar{s.String(), r.Summary.BySeverity[s.String()], severityFill[s]})
	}
	return barChart("Open findings by severity", bars)
}

// OwnerChart draws open findings by owner (the 15 with most).
func OwnerChart(owners []OwnerCount) string {
	var bars []bar
	for i, o := range owners {
		if i == 15 {
			break
		}
		bars = append(bars, bar{o.Owner, o.Count, "#4f46e5"})
	}
	if len(bars) == 0 {
		return ""
	}
	return barChart("Open findings by owner", bars)
}

// TrendChart draws open findings over past runs, when history has them.
func TrendChart(r *model.Report) string {
	if r.History == nil || len(r.History.Trend) < 2 {
		return ""
	}
	pts := r.History.Trend
	const w, h, pad = 480, 160, 30
	maxV := 1
	for _, p := range pts {
		maxV = max(maxV, p.Findings)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>Open findings per run</title>`, w, h, w, h)
	fmt.Fprintf(&sb, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>`, pad, h-pad, w-pad, h-pad)
	var path []string
	for i, p := range pts {
		x := pad + i*(w-2*pad)/(len(pts)-1)
		y := h - pad - p.Findings*(h-2*pad)/maxV
		path = append(path, fmt.Sprintf("%d,%d", x, y))
		fmt.Fprintf(&sb, `<circle cx="%d" cy="%d" r="3" fill="#4f46e5"><title>%s: %d</title></circle>`, x, y, p.At.Format("2006-01-02"), p.Findings)
	}
	fmt.Fprintf(&sb, `<polyline fill="none" stroke="#4f46e5" stroke-width="2" points="%s"/>`, strings.Join(path, " "))
	fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="11" font-family="sans-serif">%s</text>`, pad, h-8, pts[0].At.Format("2006-01-02"))
	fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="11" text-anchor="end" font-family="sans-serif">%s</text>`, w-pad, h-8, pts[len(pts)-1].At.Format("2006-01-02"))
	fmt.Fprintf(&sb, `<text x="4" y="%d" font-size="11" font-family="sans-serif">%d</text>`, pad, maxV)
	sb.WriteString(`</svg>`)
	return sb.String()
}

// LifecycleChart draws the five cleanup steps as dots: filled green when
// reached, amber when open next, a hollow ring when not reached yet, and,
// when only silent sources keep the next step open, a dashed ring with a
// "?" (neither reached nor open: nobody can tell). Rings not filled are
// hollow, so in the dark a step to come never reads as a step done; the
// report's stylesheet gives their strokes a dark-mode colour by class.
// Each dot's title says its state in words.
func LifecycleChart(b model.BackfillReport) string {
	var sb strings.Builder
	lc := b.Lifecycle
	// The text beside the dots says the same in words; the label names
	// the chart for a screen reader.
	label := "lifecycle: not tracked"
	if b.Known {
		label = fmt.Sprintf("lifecycle: %d of %d steps reached", lc.Reached, len(model.Steps()))
		if len(lc.Unknown) > 0 && !lc.Done {
			label += fmt.Sprintf(", %s unknown (%s did not answer)", lc.Next, strings.Join(lc.Unknown, ", "))
		}
	}
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="%s" width="110" height="16" viewBox="0 0 110 16">`, html.EscapeString(label))
	for i, s := range model.Steps() {
		fill, stroke, dash, mark, state := "none", "#6b7280", "", "", "not reached"
		switch {
		case !b.Known:
			state = "not tracked"
		case lc.Reached >= s:
			fill, stroke, state = "#16a34a", "#16a34a", "reached"
		case lc.Next == s && !lc.Done && len(lc.Unknown) > 0:
			dash, mark, state = ` stroke-dasharray="2 2"`, "?", "unknown"
		case lc.Next == s && !lc.Done:
			fill, stroke, state = "#fde68a", "#d97706", "open"
		}
		cx := 10 + i*22
		fmt.Fprintf(&sb, `<g class="step-%s"><circle cx="%d" cy="8" r="6" fill="%s" stroke="%s" stroke-width="1.5"%s/>`, strings.ReplaceAll(state, " ", "-"), cx, fill, stroke, dash)
		if mark != "" {
			fmt.Fprintf(&sb, `<text x="%d" y="12" text-anchor="middle" font-size="10" font-family="sans-serif">%s</text>`, cx, mark)
		}
		fmt.Fprintf(&sb, `<title>%d %s: %s</title></g>`, int(s), s, state)
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

func truncate(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
