package reports

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bfaudit/bfaudit/model"
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
	p := &printer{w: w}
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
			if c.Status == model.CoverageOK {
				continue
			}
			p.f("  %s (%s): %s", c.Source, c.System, c.Status)
			if c.Error != "" {
				p.f(": %s", c.Error)
			}
			p.f("\n")
			for _, e := range c.Errors {
				if e.Scope != "" {
					p.f("    - %s: %s\n", e.Scope, oneLine(e.Error))
				} else {
					p.f("    - %s\n", oneLine(e.Error))
				}
			}
		}
	}
	if len(r.Backfills) > 0 {
		p.f("\nBACKFILLS\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATUS\tLIFECYCLE\tFINDINGS\tOWNER\tNEXT")
		for _, b := range r.Backfills {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", b.Backfill.ID, orDash(string(b.Backfill.Status)),
				LifecycleLabel(b), b.Findings, orDash(b.Backfill.Owner), nextStep(b))
		}
		tw.Flush()
	}
	if len(r.Findings) > 0 {
		p.f("\nFINDINGS\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		// Ages are known once a history store remembers first sightings.
		withAge := r.History != nil
		if withAge {
			fmt.Fprintln(tw, "SEVERITY\tRULE\tBACKFILL\tAGE\tWHERE\tMESSAGE")
		} else {
			fmt.Fprintln(tw, "SEVERITY\tRULE\tBACKFILL\tWHERE\tMESSAGE")
		}
		for _, f := range r.Findings {
			sevText := f.Severity.String()
			if f.Waived() {
				sevText = "waived"
			}
			age := ""
			if withAge {
				age = orDash(Age(f, r.Now)) + "\t"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\t%s\n", t.paint(f.Severity, sevText), f.RuleID, orDash(f.BackfillID), age, shorten(Where(f), 64), oneLine(f.Message))
		}
		tw.Flush()
	} else {
		p.f("\nNo findings.\n")
	}
	return p.err
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
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := n / 3
	return string(r[:head]) + "…" + string(r[len(r)-(n-head-1):])
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
