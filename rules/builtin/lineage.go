package builtin

import (
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// downstream is what the lineage rules judge for one completed backfill:
// the tables derived from its targets that still need rebuilding, in
// rebuild order, and when the replay completed.
type downstream struct {
	b       *model.Backfill
	rebuild []correlate.Derived
	all     map[string]correlate.Derived // every derived table, by name
	at      time.Time
	done    string // the completion day, for messages
	visible bool   // financial or customer-visible data: high
}

// order lists the tables to rebuild.
func (d downstream) order() []string {
	out := make([]string, len(d.rebuild))
	for i, t := range d.rebuild {
		out[i] = t.Table
	}
	return out
}

// eachDownstream calls fn for every completed backfill, with a known
// completion time, whose targets have derived tables in the lineage.
func eachDownstream(c *rules.Context, fn func(d downstream)) {
	l := c.Index.Lineage()
	if l.Empty() {
		return
	}
	for _, id := range c.Index.IDs {
		b := c.Index.Backfills[id]
		if !b.Status.Completed() || unreadable(b) {
			continue
		}
		when, known := rules.Completed(b)
		targets := l.Targets(b)
		if !known || len(targets) == 0 {
			continue
		}
		rebuild := l.Rebuild(when, targets...)
		if len(rebuild) == 0 {
			continue
		}
		all := map[string]correlate.Derived{}
		for _, d := range l.Downstream(targets...) {
			all[d.Table] = d
		}
		fn(downstream{b: b, rebuild: rebuild, all: all, at: when, done: day(when),
			visible: visibleData(b)})
	}
}

// lineageUnit is the unit a finding on a derived table rests on: the
// source and scope of the edge into it, so a lineage source that does not
// answer keeps the finding open rather than resolving it.
func lineageUnit(d correlate.Derived) *model.Location {
	if len(d.Edges) == 0 {
		return nil
	}
	e := d.Edges[len(d.Edges)-1]
	return &model.Location{Source: e.Source, Path: e.Scope}
}

// lineageObject is a derived table's finding URI.
func lineageObject(table string) string { return "lineage://" + table }

// chainText writes a chain of tables: a → b → c.
func chainText(chain []string) string { return strings.Join(chain, " → ") }

// buildText says what is known of a table's last build.
func buildText(d correlate.Derived) string {
	if !d.HasBuild || d.Build.At.IsZero() {
		return "no build of it is known"
	}
	s := fmt.Sprintf("last built %s", d.Build.At.UTC().Format("2006-01-02 15:04 MST"))
	if d.Build.Status != "" {
		s += " (newest attempt: " + d.Build.Status + ")"
	}
	if d.Build.Source != "" {
		s += fmt.Sprintf(", as source %q reports it", d.Build.Source)
	}
	return s
}

// orderText lists the rebuild order of tables.
func orderText(tables []string) string {
	parts := make([]string, len(tables))
	for i, t := range tables {
		parts[i] = fmt.Sprintf("%d. %s", i+1, t)
	}
	return "rebuild order: " + strings.Join(parts, ", ")
}
