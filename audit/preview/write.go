package preview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/bfaudit/bfaudit/internal/mdsafe"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
)

// Formats are the preview's output formats.
var Formats = []string{"table", "json", "markdown"}

// Write renders r in format (one of Formats); the table's lines are
// wrapped at width terminal cells (0: not wrapped), each continuation
// indented under its line.
func Write(w io.Writer, format string, r Result, width int) error {
	switch format {
	case "table":
		return write(w, r, text, width)
	case "markdown":
		return write(w, r, markdown, 0)
	case "json":
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(r)
	}
	return fmt.Errorf("preview format %q is not one of %s", format, strings.Join(Formats, ", "))
}

// style is how the terminal and the pull-request comment differ: the
// same sections, marked up differently.
type style struct {
	title   func(p Plan) string
	head    func(s string) string // a line about the whole plan
	section func(name string) string
	item    func(depth int, s string) string
	nth     func(n int, s string) string // an item of a numbered list
	code    func(s string) string
	// text is for words the estate or the plan wrote (owners, ids,
	// errors): in a pull-request comment they must ping no one and link
	// nothing.
	text func(s string) string
}

var text = style{
	title:   func(p Plan) string { return fmt.Sprintf("%s (%s)", p.ID, p.File) },
	head:    func(s string) string { return "  " + s },
	section: func(name string) string { return "  " + name + ":" },
	item:    func(depth int, s string) string { return strings.Repeat("  ", depth+2) + s },
	nth:     func(n int, s string) string { return fmt.Sprintf("    %d. %s", n, s) },
	code:    func(s string) string { return s },
	text:    func(s string) string { return s },
}

var markdown = style{
	title: func(p Plan) string {
		return fmt.Sprintf("### Preview of %s (%s)", mdsafe.Text(p.ID), mdsafe.Code(p.File))
	},
	head:    func(s string) string { return "- " + s },
	section: func(name string) string { return "\n**" + name + "**\n" },
	item:    func(depth int, s string) string { return strings.Repeat("  ", depth) + "- " + s },
	nth:     func(n int, s string) string { return fmt.Sprintf("%d. %s", n, s) },
	code:    mdsafe.Code,
	text:    mdsafe.Text,
}

func write(w io.Writer, r Result, st style, width int) error {
	var b strings.Builder
	line := func(s string) {
		body := strings.TrimLeft(s, " ")
		indent := len(s) - len(body)
		if width <= 0 || body == "" || width-indent-2 < 20 {
			b.WriteString(s + "\n")
			return
		}
		for i, l := range reports.Wrap(body, width-indent-2) {
			if i == 0 {
				l = strings.Repeat(" ", indent) + l
			} else {
				l = strings.Repeat(" ", indent+2) + l
			}
			b.WriteString(l + "\n")
		}
	}
	if len(r.Incomplete) > 0 {
		line(st.section("INCOMPLETE: these sources did not answer fully, so every list below may be short"))
		for _, s := range r.Incomplete {
			line(st.item(0, st.text(s)))
		}
		line("")
	}
	for i, p := range r.Plans {
		if i > 0 {
			line("")
		}
		line(st.title(p))
		head := "job " + or(st.text(p.Job), "not named")
		if !p.Range.IsZero() {
			head += ", range " + interval(p.Range)
		}
		line(st.head(head))

		line(st.section("rewrites"))
		if len(p.Rewrites) == 0 {
			line(st.item(0, "no targets in the plan: the lineage cannot be followed"))
		}
		for _, t := range p.Rewrites {
			s := st.code(t.Target)
			if len(t.Tables) > 0 {
				s += " = " + st.code(strings.Join(t.Tables, ", "))
			} else if p.Lineage && len(p.LineageGaps) == 0 {
				s += " (not in the lineage)"
			}
			line(st.item(0, s))
		}

		line(st.section("rebuild afterwards, in this order"))
		gaps := ""
		if len(p.LineageGaps) > 0 {
			gaps = "lineage source " + st.text(strings.Join(p.LineageGaps, ", ")) + " did not answer fully"
		}
		switch {
		case len(p.Rewrites) == 0:
			line(st.item(0, "unknown: the plan names no targets"))
		case !p.Lineage:
			line(st.item(0, "unknown: no configured source reads lineage"))
		case gaps != "" && len(p.Rebuild) == 0:
			line(st.item(0, "unknown: "+gaps))
		case gaps != "":
			line(st.item(0, "may be short: "+gaps))
		case len(p.Rebuild) == 0:
			line(st.item(0, "nothing: the lineage shows no table derived from the targets"))
		}
		for i, t := range p.Rebuild {
			line(st.nth(i+1, st.code(t.Table)+"  "+st.text(owner(t.Owner, t.Team))))
		}

		line(st.section("tell (downstream owners missing from notified)"))
		switch {
		case len(p.Rewrites) == 0:
			line(st.item(0, "unknown: the plan names no targets"))
		case !p.Lineage:
			line(st.item(0, "unknown: no configured source reads lineage"))
		case gaps != "":
			line(st.item(0, "may be short: "+gaps))
		case len(p.Tell) == 0:
			line(st.item(0, "nobody: every known owner of a derived table is notified"))
		}
		for _, n := range p.Tell {
			team := "no team"
			if n.Team != "" {
				team = "team " + n.Team
			}
			line(st.item(0, fmt.Sprintf("%s: %s, owner of %s", st.text(team), st.text(n.Owner), st.code(strings.Join(n.Tables, ", ")))))
		}

		line(st.section("how the scheduler will run it"))
		writeScheduler(line, st, p.Scheduler)

		line(st.section("cost (the warehouse's dry runs)"))
		writeCost(line, st, p, r.Estimators)

		line(st.section("collisions (open backfills over overlapping intervals on the same tables or job)"))
		if len(p.Collisions) == 0 {
			line(st.item(0, "none"))
		}
		for _, c := range p.Collisions {
			var what []string
			if len(c.Tables) > 0 {
				what = append(what, "rewrites "+st.code(strings.Join(c.Tables, ", ")))
			}
			if c.Job != "" {
				what = append(what, "replays job "+st.code(c.Job))
			}
			line(st.item(0, fmt.Sprintf("%s (%s, %s) %s", st.text(c.Backfill), or(string(c.Status), "status unknown"), interval(c.Range), strings.Join(what, " and "))))
		}

		line(st.section("findings"))
		if len(p.Findings) == 0 {
			line(st.item(0, "none"))
		}
		for _, f := range p.Findings {
			line(st.item(0, st.text(fmt.Sprintf("%s: %s %s %s: %s", reports.Where(f), f.Severity, f.RuleID, f.RuleName, f.Message))))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeScheduler(line func(string), st style, s *Scheduler) {
	switch {
	case s == nil:
		line(st.item(0, "unknown: the plan names no job_id"))
		return
	case !s.Found:
		line(st.item(0, fmt.Sprintf("unknown: no scheduler that answered reports job %s", st.code(s.Job))))
		return
	}
	line(st.item(0, st.code(s.URI)+": "+st.text(fmt.Sprintf("max_active_runs %s, pool %s, catchup %s, schedule %s",
		or(s.MaxActiveRuns, "not set"), or(s.Pool, "not set"), or(s.Catchup, "not set"), or(s.Schedule, "none")))))
	for _, d := range s.Differences {
		risk := ""
		if d.Riskier {
			risk = " (riskier than planned)"
		}
		line(st.item(1, st.text(fmt.Sprintf("plan says %s %s, the scheduler runs it with %s%s", d.Key, d.Planned, d.Runs, risk))))
	}
	if len(s.Differences) == 0 {
		line(st.item(1, "as the plan says, where both say"))
	}
	if s.ActiveRuns > 0 {
		line(st.item(1, fmt.Sprintf("%d of the job's runs running or queued now", s.ActiveRuns)))
	}
	for _, a := range s.Active {
		line(st.item(1, st.text(fmt.Sprintf("already active: %s for %s, %s", a.Backfill, interval(a.Range), view(a.View)))))
	}
}

func view(v model.SchedulerView) string {
	s := v.Object + ": max_active_runs " + fmt.Sprint(v.MaxActiveRuns)
	if v.ReprocessBehavior != "" {
		s += ", reprocess_behavior " + v.ReprocessBehavior
	}
	if v.Paused {
		s += ", paused"
	}
	return s
}

func owner(o, team string) string {
	if o == "" {
		return "(owner unknown)"
	}
	if team == "" {
		return o
	}
	return o + " (team " + team + ")"
}

func interval(i model.Interval) string {
	if i.IsZero() {
		return "range unknown"
	}
	return i.Start.UTC().Format("2006-01-02") + " to " + i.End.UTC().Format("2006-01-02")
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// writeCost lists what each warehouse said of the plan and the plan's own
// estimate beside it (BF116 judges the two).
func writeCost(line func(string), st style, p Plan, estimators []string) {
	for _, e := range p.Cost {
		if e.Error != "" {
			line(st.item(0, st.text(e.Source)+": unknown: the source could not be asked (the preview is incomplete)"))
		}
		for _, t := range e.Rewrites {
			switch {
			case t.Error != "":
				line(st.item(0, st.text(e.Source)+": "+st.code(t.Table)+": not read: "+st.text(t.Error)))
			case t.Partitioning == "":
				line(st.item(0, st.text(e.Source)+": "+st.code(t.Table)+fmt.Sprintf(": not partitioned, rewritten whole: %d rows, %s", t.Rows, model.FormatBytes(t.Bytes))))
			default:
				line(st.item(0, st.text(e.Source)+": "+st.code(t.Table)+fmt.Sprintf(": %d %s partitions in the range, %d rows, %s", t.Partitions, t.Partitioning, t.Rows, model.FormatBytes(t.Bytes))))
			}
		}
		for _, q := range e.Queries {
			if q.Error != "" {
				line(st.item(0, st.text(e.Source)+": "+q.Query+": the dry run refused it: "+st.text(q.Error)))
				continue
			}
			s := st.text(e.Source) + ": " + q.Query + ": " + model.FormatBytes(q.Bytes)
			if e.PricePerTiB > 0 {
				s += fmt.Sprintf(" ($%.2f at $%.2f per TiB)", model.Dollars(q.Bytes, e.PricePerTiB), e.PricePerTiB)
			}
			switch {
			case q.Sampled > 0:
				s += fmt.Sprintf(", %d intervals (%d of them dry-run, scaled up)", q.Intervals, q.Sampled)
			case q.Intervals > 0:
				s += fmt.Sprintf(", %d intervals", q.Intervals)
			}
			line(st.item(0, s))
		}
	}
	if len(p.Cost) == 0 {
		if len(estimators) == 0 {
			line(st.item(0, "unknown: no configured source can dry-run a plan (a bigquery source)"))
		} else {
			line(st.item(0, "nothing: "+st.text(strings.Join(estimators, ", "))+" hold none of the targets and the plan has no query to dry-run"))
		}
	}
	line(st.item(0, "the plan's estimate: "+st.text(or(p.CostEstimate, "none"))))
}
