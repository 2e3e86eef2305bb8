package builtin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF029", Name: "target-not-in-lineage", Title: "Plan target names no table the lineage knows",
		Rationale: "Every table derived from a fixed table needs rebuilding, in dependency order. " +
			"The lineage rules find those tables from the plan's targets: a target that names no table of the lineage, or several, " +
			"checks nothing downstream of it, and the audit says nothing about tables still holding the old numbers.",
		Practice:    rules.PracticeDownstream,
		Remediation: "Write the target as the lineage names the table: database.schema.table, schema.table, a bare table or model name that only one table has, or its dbt unique id (model.shop.orders, seed.shop.raw_orders, source.shop.raw.payments).",
		Severity:    model.SeverityMedium, Step: model.StepPlan,
		Check:  targetNotInLineage,
		Remedy: &remedy.Recipe{Build: remedy.TargetsUnmatched, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

// targetNotInLineage judges each plan's targets against the lineage the
// audit read: one that matches no table, or whose bare name fits several,
// is reported. It needs the lineage, so plan check (which reads no
// source) does not run it. Nothing is concluded when a source that gave
// lineage did not answer in full, or another source of the same system
// failed: the table may be in what was not read.
func targetNotInLineage(c *rules.Context) {
	l := c.Index.Lineage()
	if l.Empty() {
		return
	}
	read, ok := lineageRead(c.Index)
	if !ok {
		return
	}
	plans(c.Index, func(b *model.Backfill) {
		var none, several []string
		ev := []string{"lineage read: " + read.text()}
		for _, t := range b.Targets {
			m := l.Match(t)
			switch {
			case len(m.Tables) > 0:
				continue
			case len(m.Candidates) > 1:
				several = append(several, t)
				ev = append(ev, fmt.Sprintf("%s fits %d tables: %s", t, len(m.Candidates), strings.Join(m.Candidates, ", ")))
			default:
				none = append(none, t)
				ev = append(ev, t+" matches no table")
				if last := lastPart(t); last != strings.ToLower(strings.TrimSpace(t)) {
					if like := l.Match(last); len(like.Tables)+len(like.Candidates) > 0 {
						ev = append(ev, "tables named "+last+": "+strings.Join(append(like.Tables, like.Candidates...), ", "))
					}
				}
			}
		}
		if len(none)+len(several) == 0 {
			return
		}
		var what []string
		if len(none) > 0 {
			what = append(what, fmt.Sprintf("%s, which match%s no table of the lineage", joinAnd(none), oneOr(len(none), "es", "")))
		}
		if len(several) > 0 {
			what = append(what, fmt.Sprintf("%s, which fit%s several tables", joinAnd(several), oneOr(len(several), "s", "")))
		}
		// A verdict on the plan against the whole lineage: it rests on
		// every unit (no object), so a unit that does not answer next time
		// keeps it open.
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "targets"), Evidence: ev,
			Message: fmt.Sprintf("plan for %s names target%s %s: the tables derived from %s are not checked for a rebuild",
				b.ID, oneOr(len(none)+len(several), "", "s"), strings.Join(what, ", and "), oneOr(len(none)+len(several), "it", "them"))})
	})
}

// lastPart is a target's last dot-separated part, as a table's name ends.
func lastPart(t string) string {
	ref := model.TableRef(t)
	return ref[strings.LastIndex(ref, ".")+1:]
}

// lineageSources says which sources gave the lineage and from how many
// units, for the evidence.
type lineageSources struct {
	sources []string
	units   map[string]map[string]bool
	tables  map[string]map[string]bool
}

func (s lineageSources) text() string {
	parts := make([]string, len(s.sources))
	for i, src := range s.sources {
		units := slices.Sorted(func(yield func(string) bool) {
			for u := range s.units[src] {
				if !yield(u) {
					return
				}
			}
		})
		parts[i] = fmt.Sprintf("source %s, %d tables from %s", src, len(s.tables[src]), strings.Join(units, ", "))
	}
	return strings.Join(parts, "; ")
}

// lineageRead gathers the sources that gave edges or builds; ok is false
// when one of them did not answer in full, or a source of the same system
// failed.
func lineageRead(ix *correlate.Index) (lineageSources, bool) {
	s := lineageSources{units: map[string]map[string]bool{}, tables: map[string]map[string]bool{}}
	systems := map[string]bool{}
	note := func(src, scope, system string, tables ...string) {
		if s.units[src] == nil {
			s.units[src], s.tables[src] = map[string]bool{}, map[string]bool{}
			s.sources = append(s.sources, src)
		}
		if scope != "" {
			s.units[src][scope] = true
		}
		for _, t := range tables {
			s.tables[src][t] = true
		}
		systems[system] = true
	}
	for _, e := range ix.Estate.Edges {
		note(e.Source, e.Scope, e.System, e.Parent, e.Child)
	}
	for _, b := range ix.Estate.Builds {
		note(b.Source, "", b.System, b.Table)
	}
	slices.Sort(s.sources)
	for _, cov := range ix.Estate.Coverage {
		if s.units[cov.Source] != nil && !cov.Full() || cov.Failed() && systems[cov.System] {
			return s, false
		}
	}
	return s, len(s.sources) > 0
}
