package builtin

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF025", Name: "rebuilt-out-of-order", Title: "Derived table rebuilt before its parent",
		Rationale: "Derived tables must be rebuilt in dependency order: a child rebuilt before its parent read the parent's old numbers, " +
			"so the stack ends up in a state where two tables disagree.",
		Practice:    rules.PracticeDownstream,
		Remediation: "Rebuild the table again, after its parents, in the order given.",
		Severity:    model.SeverityMedium, Ladder: upRung(model.SeverityMedium, "when a derived table was rebuilt before its parent", "on customer-visible data: financial or customer"),
		Step:   model.StepVerified,
		Check:  rebuiltOutOfOrder,
		Remedy: &remedy.Recipe{Build: remedy.Rebuild, Examples: []remedy.ExampleOf{remedy.ExampleRebuild}},
	})
}

// rebuiltOutOfOrder flags a derived table rebuilt after the backfill
// completed but before a parent of it that is itself downstream (and was
// rebuilt later, or not yet): it read the parent's old numbers.
func rebuiltOutOfOrder(c *rules.Context) {
	eachDownstream(c, func(d downstream) {
		needs := map[string]bool{}
		for _, t := range d.rebuild {
			needs[t.Table] = true
		}
		for _, t := range d.rebuild {
			if !t.RebuiltSince(d.at) {
				continue // stale, BF024's
			}
			var late []string
			for _, e := range c.Index.Lineage().DataParents(t.Table) { // through views: they hold nothing of their own
				p, ok := d.all[e.Parent]
				if !ok {
					continue
				}
				switch {
				case !p.RebuiltSince(d.at):
					late = append(late, fmt.Sprintf("%s is not rebuilt since the backfill", p.Table))
				case p.Build.At.After(t.Build.At):
					late = append(late, fmt.Sprintf("%s was rebuilt %s, after it", p.Table, p.Build.At.UTC().Format("2006-01-02 15:04 MST")))
				case needs[p.Table]:
					late = append(late, fmt.Sprintf("%s must be rebuilt again first", p.Table))
				}
			}
			if len(late) == 0 {
				continue
			}
			ev := []string{"derived from the backfill's target: " + chainText(t.Chain), fmt.Sprintf("%s is %s", t.Table, buildText(t))}
			ev = append(ev, late...)
			ev = append(ev, orderText(d.order()))
			if d.visible {
				ev = append(ev, classifiedNote(d.b))
			}
			c.Report(rules.Issue{Backfill: d.b, Object: lineageObject(t.Table), Unit: lineageUnit(t), Severity: up(d.visible, model.SeverityMedium), Evidence: ev,
				Message: fmt.Sprintf("%s was rebuilt after %s completed but before its parent: %s", t.Table, d.b.ID, strings.Join(late, "; "))})
		}
	})
}
