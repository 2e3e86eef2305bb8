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
}

var severityColor = map[model.Severity]string{
	model.SeverityCritical: "\x1b[1;31m", model.SeverityHigh: "\x1b[31m",
	model.SeverityMedium: "\x1b[33m", model.SeverityLow: "\x1b[36m", model.SeverityInfo: "\x1b[2m",
}

// Write implements Writer.
func (t *Table) Write(_ context.Context, w io.Writer, r *model.Report) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	p := &printer{w: bw}
	s := r.Summary
	p.f("bfaudit report as of %s\n", r.Now.Format("2006-01-02 15:04 MST"))
	p.f("%d backfills, %d artifacts, %d decision records; %d open findings", s.Backfills, s.Artifacts, s.Records, s.Findings)
	if s.Waived > 0 {
		p.f(" (%d waived)", s.Waived)
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
		p.table([]string{"ID", "STATUS", "LIFECYCLE", "FINDINGS", "OWNER", "NEXT"}, len(r.Backfills), func(i int, row []string) {
			b := &r.Backfills[i]
			row[0], row[1], row[2] = b.Backfill.ID, orDash(string(b.Backfill.Status)), LifecycleLabel(*b)
			row[3], row[4], row[5] = strconv.Itoa(b.Findings), orDash(b.Backfill.Owner), nextStep(*b)
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

// LifecycleLabel shows a backfill's position as "3/5 access revoked".
func LifecycleLabel(b model.BackfillReport) string {
	if !b.Known {
		return "unknown backfill"
	}
	if b.Lifecycle.Reached == model.StepPlan {
		return "0/5 not verified"
	}
	return fmt.Sprintf("%d/5 %s", int(b.Lifecycle.Reached), b.Lifecycle.Reached)
}

func nextStep(b model.BackfillReport) string {
	if b.Lifecycle.Done {
		return "done"
	}
	if len(b.Lifecycle.Blockers) == 0 {
		return "-"
	}
	next := b.Lifecycle.Blockers[0]
	if n := len(b.Lifecycle.Blockers); n > 1 {
		next += fmt.Sprintf(" (+%d more)", n-1)
	}
	if !b.Known {
		return oneLine(next)
	}
	return b.Lifecycle.Next.String() + ": " + oneLine(next)
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

// table writes a header and n rows in columns, as text/tabwriter does with
// two spaces of padding (widths counted in runes, the last cell not
// padded), but without holding the rows: a first pass measures them and a
// second writes them, each made by row(i, cells) into the same cells.
// Tabs and line breaks in a cell become spaces: they would break the
// columns.
func (p *printer) table(header []string, n int, row func(i int, cells []string)) {
	widths := make([]int, len(header)-1)
	cells := make([]string, len(header))
	measure := func() {
		for j := range widths {
			cells[j] = cellText(cells[j])
			widths[j] = max(widths[j], utf8.RuneCountInString(cells[j]))
		}
	}
	line := func() {
		for j, w := range widths {
			p.s(cells[j])
			for pad := w + 2 - utf8.RuneCountInString(cells[j]); pad > 0; pad -= len(spaces) {
				p.s(spaces[:min(pad, len(spaces))])
			}
		}
		p.s(cellText(cells[len(widths)]))
		p.s("\n")
	}
	copy(cells, header)
	measure()
	for i := range n {
		row(i, cells)
		measure()
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
