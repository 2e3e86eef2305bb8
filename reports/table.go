package reports

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
)

// Table writes a report for a terminal: coverage problems first, then one
// line per backfill with its lifecycle position, then the findings, the
// most urgent first and the waived last (docs/reports/terminal.md).
type Table struct {
	// Color paints severities (only on a terminal); it never moves a column.
	Color bool
	// Width is the terminal's width in columns: columns are shortened,
	// wrapped or left out, the least important first, to fit it. 0 means
	// no limit (a file, a pipe): every cell whole, one line per row.
	Width int
}

var severityColor = map[model.Severity]string{
	model.SeverityCritical: "\x1b[1;31m", model.SeverityHigh: "\x1b[31m",
	model.SeverityMedium: "\x1b[33m", model.SeverityLow: "\x1b[36m", model.SeverityInfo: "\x1b[2m",
}

// waivedColor dims a waived finding's mark: accepted, not to do.
const waivedColor = "\x1b[2m"

// Write implements Writer.
func (t *Table) Write(_ context.Context, w io.Writer, r *model.Report) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	p := &printer{w: bw, width: t.Width}
	s := r.Summary
	p.f("bfaudit report as of %s\n", r.Now.Format("2006-01-02 15:04 MST"))
	head := fmt.Sprintf("%d backfills, %d artifacts, %d decision records; %d open findings", s.Backfills, s.Artifacts, s.Records, s.Findings)
	if s.Waived > 0 {
		head += fmt.Sprintf(" (%d waived)", s.Waived)
	}
	if n := OverdueCount(r); n > 0 {
		head += fmt.Sprintf(", %d overdue", n)
	}
	p.para(0, head)
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
		p.s("\n")
		p.para(2, "INCOMPLETE RUN: "+pr)
	}
	if !s.Complete && !model.AnswersOf(r.Coverage).All() {
		p.s("\n")
		p.para(0, "INCOMPLETE: some sources did not answer; nothing is concluded gone from them.")
		for _, c := range r.Coverage {
			if c.Full() {
				continue
			}
			line := fmt.Sprintf("%s (%s): %s", c.Source, c.System, c.State())
			if c.Error != "" {
				line += ": " + c.Error
			}
			p.pad(2)
			p.para(4, line)
			for _, e := range c.UnitErrors() {
				p.pad(4)
				if e.Scope != "" && !e.Positioned() {
					p.para(6, "- "+e.Scope+": "+e.Error)
				} else {
					p.para(6, "- "+e.Error)
				}
			}
		}
	}
	if len(r.Backfills) > 0 {
		p.s("\nBACKFILLS\n")
		t.backfills(p, r)
	}
	if len(r.Findings) > 0 {
		p.s("\nFINDINGS\n")
		t.findings(p, r)
	} else {
		p.s("\nNo findings.\n")
	}
	if len(r.Coverage) > 0 {
		p.s("\nSOURCES\n")
		cols := []column{
			{header: "SOURCE", give: middle, min: 10, max: 32},
			{header: "SYSTEM", rank: 1},
			{header: "STATE", rank: 2},
			{header: "READ", give: wrap, rank: 3, drop: true, min: 20},
		}
		p.leftOut(p.grid(cols, len(r.Coverage), func(i int, row []cell) {
			c := &r.Coverage[i]
			row[0].text, row[1].text, row[2].text, row[3].text = c.Source, c.System, string(c.State()), orDash(ReadCell(*c))
		}))
	}
	if p.err == nil {
		p.err = bw.Flush()
	}
	return p.err
}

// backfills writes one row per backfill: where its lifecycle stands and
// the one most urgent thing open, cut to the width, with how many more.
func (t *Table) backfills(p *printer, r *model.Report) {
	u := newUrgency(r)
	cols := []column{
		{header: "ID", give: middle, min: 10, comfy: 16, max: 24},
		{header: "LIFECYCLE", rank: 1},
		{header: "OPEN", rank: 2},
		{header: "OWNER", give: end, rank: 3, drop: true, min: 10, comfy: 20, max: 24},
		{header: "NEXT", give: end, rank: 4, min: 20},
	}
	p.leftOut(p.grid(cols, len(r.Backfills), func(i int, row []cell) {
		b := &r.Backfills[i]
		n := u.next(*b)
		row[0].text, row[1].text, row[2].text = b.Backfill.ID, LifecycleLabel(*b), strconv.Itoa(b.Findings)
		row[3].text, row[4].text, row[4].more = orDash(b.Backfill.Owner), n.Item(), n.MoreText()
	}))
}

// findings writes one row per finding, open ones most urgent first, then
// the waived, marked as such.
func (t *Table) findings(p *printer, r *model.Report) {
	// Ages are known once a history store remembers first sightings.
	withAge, withDue := r.History != nil, hasDue(r.Findings)
	cols := []column{
		{header: "SEVERITY"},
		{header: "RULE", rank: 1},
		{header: "BACKFILL", give: middle, rank: 2, drop: true, min: 10, comfy: 16, max: 24},
		{header: "OWNER", give: end, rank: 3, drop: true, min: 10, comfy: 20, max: 24},
	}
	if withDue {
		cols = append(cols, column{header: "DUE", rank: 6, drop: true})
	}
	if withAge {
		cols = append(cols, column{header: "AGE", rank: 7, drop: true})
	}
	cols = append(cols,
		column{header: "WHERE", give: middle, rank: 4, drop: true, min: 16, comfy: 40, max: 64},
		column{header: "MESSAGE", give: wrap, rank: 5, drop: true, min: 40, comfy: 60})
	order := tableOrder(r)
	p.leftOut(p.grid(cols, len(order), func(i int, row []cell) {
		f := &r.Findings[order[i]]
		row[0] = cell{text: f.Severity.String(), color: t.color(f.Severity)}
		if f.Waived() {
			row[0].text = "waived"
			if t.Color {
				row[0].color = waivedColor
			}
		}
		row[1].text, row[2].text, row[3].text = f.RuleID, orDash(f.BackfillID), orDash(f.Owner)
		k := 4
		if withDue {
			row[k].text, k = orDash(DueCell(*f, r.Now)), k+1
		}
		if withAge {
			row[k].text, k = orDash(Age(*f, r.Now)), k+1
		}
		row[k].text, row[k+1].text = Where(*f), oneLine(f.Message)
	}))
}

// tableOrder is the order the table lists findings in, as indexes: the
// open ones most urgent first (moreUrgent), then the waived, so nothing
// accepted sits among what is to be done.
func tableOrder(r *model.Report) []int32 {
	order := make([]int32, len(r.Findings))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(i, j int32) int {
		a, b := &r.Findings[i], &r.Findings[j]
		switch {
		case a.Waived() != b.Waived():
			if a.Waived() {
				return 1
			}
			return -1
		case moreUrgent(a, b, r.Now):
			return -1
		case moreUrgent(b, a, r.Now):
			return 1
		}
		return 0
	})
	return order
}

// leftOut says which columns a table left out to fit the width.
func (p *printer) leftOut(headers []string) {
	if len(headers) > 0 {
		p.f("(%s left out to fit %d columns)\n", strings.Join(headers, ", "), p.width)
	}
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

// color is a severity's ANSI code, "" without colour.
func (t *Table) color(s model.Severity) string {
	if !t.Color {
		return ""
	}
	return severityColor[s]
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
