package reports

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
)

// Table writes a report for a terminal: coverage problems first, then one
// line per backfill with its lifecycle position, then the findings.
type Table struct {
	Color bool
	// Width is the terminal's width in columns: a table wider than it
	// wraps its last column, or is written one block per row when even
	// that would not fit. 0 means no limit (a file, a pipe).
	Width int
}

var severityColor = map[model.Severity]string{
	model.SeverityCritical: "\x1b[1;31m", model.SeverityHigh: "\x1b[31m",
	model.SeverityMedium: "\x1b[33m", model.SeverityLow: "\x1b[36m", model.SeverityInfo: "\x1b[2m",
}

// Write implements Writer.
func (t *Table) Write(_ context.Context, w io.Writer, r *model.Report) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	p := &printer{w: bw, width: t.Width}
	s := r.Summary
	p.f("bfaudit report as of %s\n", r.Now.Format("2006-01-02 15:04 MST"))
	p.f("%d backfills, %d artifacts, %d decision records; %d open findings", s.Backfills, s.Artifacts, s.Records, s.Findings)
	if s.Waived > 0 {
		p.f(" (%d waived)", s.Waived)
	}
	if n := OverdueCount(r); n > 0 {
		p.f(", %d overdue", n)
	}
	p.f("\n")
	var sev []string
	for _, v := range model.Severities() {
		if n := s.BySeverity[v.String()]; n > 0 {
			sev = append(sev, fmt.Sprintf("%s %d", t.paint(v, v.String()), n))
		}
	}
	if len(sev) > 0 {
		p.f("by severity: %s\n", strings.Join(sev, ", "))
	}
	for _, pr := range r.Problems {
		p.f("\nINCOMPLETE RUN: %s\n", oneLine(pr))
	}
	if !s.Complete && !model.AnswersOf(r.Coverage).All() {
		p.f("\nINCOMPLETE: some sources did not answer; nothing is concluded gone from them.\n")
		for _, c := range r.Coverage {
			if c.Full() {
				continue
			}
			p.f("  %s (%s): %s", c.Source, c.System, c.State())
			if c.Error != "" {
				p.f(": %s", c.Error)
			}
			p.f("\n")
			for _, e := range c.Errors {
				if e.Scope != "" && !e.Positioned() {
					p.f("    - %s: %s\n", e.Scope, oneLine(e.Error))
				} else {
					p.f("    - %s\n", oneLine(e.Error))
				}
			}
		}
	}
	if len(r.Backfills) > 0 {
		p.f("\nBACKFILLS\n")
		u := newUrgency(r)
		p.table([]string{"ID", "LIFECYCLE", "OPEN", "OWNER", "NEXT"}, len(r.Backfills), func(i int, row []string) {
			b := &r.Backfills[i]
			row[0], row[1], row[2] = b.Backfill.ID, LifecycleLabel(*b), strconv.Itoa(b.Findings)
			row[3], row[4] = orDash(b.Backfill.Owner), u.next(*b).String()
		})
	}
	if len(r.Findings) > 0 {
		p.f("\nFINDINGS\n")
		// Ages are known once a history store remembers first sightings.
		withAge, withDue := r.History != nil, hasDue(r.Findings)
		header := []string{"SEVERITY", "RULE", "BACKFILL"}
		if withAge {
			header = append(header, "AGE")
		}
		if withDue {
			header = append(header, "DUE")
		}
		header = append(header, "WHERE", "MESSAGE")
		p.table(header, len(r.Findings), func(i int, row []string) {
			f := &r.Findings[i]
			sevText := f.Severity.String()
			if f.Waived() {
				sevText = "waived"
			}
			row[0], row[1], row[2] = t.paint(f.Severity, sevText), f.RuleID, orDash(f.BackfillID)
			k := 3
			if withAge {
				row[k], k = orDash(Age(*f, r.Now)), k+1
			}
			if withDue {
				row[k], k = orDash(DueCell(*f, r.Now)), k+1
			}
			row[k], row[k+1] = shorten(Where(*f), 64), oneLine(f.Message)
		})
	} else {
		p.f("\nNo findings.\n")
	}
	if len(r.Coverage) > 0 {
		p.f("\nSOURCES\n")
		p.table([]string{"SOURCE", "SYSTEM", "STATE", "READ"}, len(r.Coverage), func(i int, row []string) {
			c := &r.Coverage[i]
			row[0], row[1], row[2], row[3] = c.Source, c.System, string(c.State()), orDash(ReadCell(*c))
		})
	}
	if p.err == nil {
		p.err = bw.Flush()
	}
	return p.err
}

// ReadCell says what a source read, for a coverage table: its reads by
// kind, else the artifacts, plans and records it gave.
func ReadCell(c model.Coverage) string {
	if s := c.ReadSummary(); s != "" {
		return s
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{c.Artifacts, "artifacts"}, {c.Backfills, "plans"}, {c.Records, "records"}} {
		if p.n > 0 {
			parts = append(parts, strconv.Itoa(p.n)+" "+p.what)
		}
	}
	return strings.Join(parts, ", ")
}

func (t *Table) paint(s model.Severity, text string) string {
	if !t.Color {
		return text
	}
	return severityColor[s] + text + "\x1b[0m"
}

// Age says how long a finding has been seen, in days ("" when unknown).
func Age(f model.Finding, now time.Time) string {
	if f.FirstSeen.IsZero() || now.Before(f.FirstSeen) {
		return ""
	}
	return fmt.Sprintf("%dd", int(now.Sub(f.FirstSeen).Hours()/24))
}

// DueCell is a finding's due date as tables show it: "2026-12-04", or
// "OVERDUE 3d" once past it; "" when it has none.
func DueCell(f model.Finding, now time.Time) string {
	if f.Overdue || (!f.DueAt.IsZero() && !now.Before(f.DueAt)) {
		return due.Label(f, now)
	}
	if f.DueAt.IsZero() {
		return ""
	}
	return due.Date(f.DueAt)
}

// hasDue reports whether any finding has a due date.
func hasDue(fs []model.Finding) bool {
	for i := range fs {
		if !fs[i].DueAt.IsZero() {
			return true
		}
	}
	return false
}

// LifecycleLabel shows a backfill's position as the audit found it:
// "3/5 access revoked", "0/5 not verified"; "2/5 normalized, access
// revoked unknown" when only silent sources keep the next step open. A
// plan that declares more than was found is quoted as the plan's word,
// "0/5, plan says verified", so the label never reads "verified" beside
// "not verified".
func LifecycleLabel(b model.BackfillReport) string {
	if !b.Known {
		return "unknown backfill"
	}
	lc := b.Lifecycle
	var s string
	switch {
	case lc.Done:
		return fmt.Sprintf("%d/5 %s", int(lc.Reached), lc.Reached)
	case lc.Reached == model.StepPlan:
		s = "0/5"
	default:
		s = fmt.Sprintf("%d/5 %s", int(lc.Reached), lc.Reached)
	}
	claim := PlanClaims(b)
	switch {
	case len(lc.Unknown) > 0:
		s += ", " + lc.Next.String() + " unknown"
	case lc.Reached == model.StepPlan && claim == "":
		s += " not verified"
	}
	if claim != "" {
		s += ", plan says " + claim
	}
	return s
}

// planSteps are the plan statuses that declare a lifecycle step done.
var planSteps = map[model.Status]model.Step{
	model.StatusVerified: model.StepVerified, model.StatusArchived: model.StepArchived, model.StatusRetired: model.StepRetired,
}

// PlanClaims is the plan's declared status when it claims a step the
// audit did not find reached ("verified" on a plan whose replay is not
// verified); "" when the plan claims no more than was found.
func PlanClaims(b model.BackfillReport) string {
	st, ok := planSteps[b.Backfill.Status]
	if !ok || !b.Known || b.Lifecycle.Done || st <= b.Lifecycle.Reached {
		return ""
	}
	return string(b.Backfill.Status)
}

// Where says where a finding points: the artifact or the file and line.
func Where(f model.Finding) string {
	if f.Location != nil && f.Location.Path != "" {
		return f.Location.String()
	}
	if f.ArtifactURI != "" {
		return f.ArtifactURI
	}
	return "-"
}

// shorten keeps a long URI readable in a table: its start and its end,
// which name the system and the object. JSON and HTML keep it whole.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := n / 3
	return string(r[:head]) + "…" + string(r[len(r)-(n-head-1):])
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string {
	if isOneLine(s) {
		return s // most are: no copy
	}
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine reports whether s is already what oneLine makes of it: no
// space at either end, and no space but single ASCII spaces between words.
func isOneLine(s string) bool {
	space := true
	for _, r := range s {
		if unicode.IsSpace(r) {
			if r != ' ' || space {
				return false
			}
			space = true
		} else {
			space = false
		}
	}
	return !space || s == ""
}

type printer struct {
	w   *bufio.Writer
	err error
	// width is the columns a table must fit in; 0 for no limit.
	width int
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) s(s string) {
	if p.err == nil {
		_, p.err = p.w.WriteString(s)
	}
}

func (p *printer) pad(n int) {
	for ; n > 0; n -= len(spaces) {
		p.s(spaces[:min(n, len(spaces))])
	}
}

// minLast is the narrowest the last column of a table may be wrapped to
// before the table is written as one block per row instead.
const minLast = 30

// table writes a header and n rows in columns, as text/tabwriter does with
// two spaces of padding (widths counted in runes, the last cell not
// padded), but without holding the rows: a first pass measures them and a
// second writes them, each made by row(i, cells) into the same cells.
// Tabs and line breaks in a cell become spaces: they would break the
// columns.
//
// With a width, a table wider than it wraps its last cell under its
// column; when the other columns leave less than minLast for it, each row
// is written as a block instead: its first cell, then one indented line
// per other cell, "HEADER  value", wrapped to the width.
func (p *printer) table(header []string, n int, row func(i int, cells []string)) {
	widths := make([]int, len(header)-1)
	cells := make([]string, len(header))
	last := 0
	measure := func() {
		for j := range widths {
			cells[j] = cellText(cells[j])
			widths[j] = max(widths[j], utf8.RuneCountInString(cells[j]))
		}
		last = max(last, utf8.RuneCountInString(cellText(cells[len(widths)])))
	}
	copy(cells, header)
	measure()
	for i := range n {
		row(i, cells)
		measure()
	}
	prefix := 0
	for _, w := range widths {
		prefix += w + 2
	}
	if p.width > 0 && prefix+last > p.width && p.width-prefix < minLast {
		p.blocks(header, n, row, cells)
		return
	}
	wrap := 0 // the last column's width, when it must wrap
	if p.width > 0 && prefix+last > p.width {
		wrap = p.width - prefix
	}
	line := func() {
		for j, w := range widths {
			p.s(cells[j])
			p.pad(w + 2 - utf8.RuneCountInString(cells[j]))
		}
		for k, l := range wrapText(cellText(cells[len(widths)]), wrap) {
			if k > 0 {
				p.s("\n")
				p.pad(prefix)
			}
			p.s(l)
		}
		p.s("\n")
	}
	copy(cells, header)
	measure()
	line()
	for i := range n {
		row(i, cells)
		measure()
		line()
	}
}

// blocks writes a table too wide for the width one row at a time: the
// first cell alone, then "  HEADER  value" for each other cell, the value
// wrapped to the width under itself.
func (p *printer) blocks(header []string, n int, row func(i int, cells []string), cells []string) {
	hw := 0
	for _, h := range header[1:] {
		hw = max(hw, utf8.RuneCountInString(h))
	}
	indent := 2 + hw + 2
	for i := range n {
		row(i, cells)
		p.s(cellText(cells[0]))
		p.s("\n")
		for j := 1; j < len(header); j++ {
			p.s("  ")
			p.s(header[j])
			p.pad(hw + 2 - utf8.RuneCountInString(header[j]))
			for k, l := range wrapText(cellText(cells[j]), max(minLast, p.width-indent)) {
				if k > 0 {
					p.s("\n")
					p.pad(indent)
				}
				p.s(l)
			}
			p.s("\n")
		}
	}
}

// wrapText breaks s into lines of at most w runes at spaces, cutting a
// word longer than a line; w <= 0 keeps s whole.
func wrapText(s string, w int) []string {
	if w <= 0 || utf8.RuneCountInString(s) <= w {
		return []string{s}
	}
	var lines []string
	var cur []rune
	for _, word := range strings.Fields(s) {
		r := []rune(word)
		if len(cur) > 0 && len(cur)+1+len(r) > w {
			lines, cur = append(lines, string(cur)), cur[:0]
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		for len(cur)+len(r) > w {
			k := w - len(cur)
			lines, cur, r = append(lines, string(append(cur, r[:k]...))), cur[:0], r[k:]
		}
		cur = append(cur, r...)
	}
	if len(cur) > 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

const spaces = "                                "

func cellText(s string) string {
	if !strings.ContainsAny(s, "\t\n\v\f\r") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("\t\n\v\f\r", r) {
			return ' '
		}
		return r
	}, s)
}
