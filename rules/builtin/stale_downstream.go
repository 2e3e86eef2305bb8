package builtin

import (
	"fmt"
	"slices"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF024", Name: "stale-downstream-table", Title: "Table derived from a backfilled table not rebuilt since",
		Rationale: "Fixing a table means every derived table needs rebuilding, in dependency order; without lineage that ordering is reconstructed by hand, " +
			"something is missed, and two tables end up disagreeing. " +
			"The validation query proves the corrected range exists, not that downstream models, exports or dashboards consumed it" +
			".",
		Practice:    rules.PracticeDownstream,
		Remediation: "Rebuild every derived table in the order given (each after its parents), then re-run the audit; lineage comes from dbt artifacts, the warehouse's job history or a lineage service.",
		Severity:    model.SeverityMedium, Ladder: upRung(model.SeverityMedium, "when a derived table is not rebuilt since the backfill", "on customer-visible data: financial or customer"),
		Step:   model.StepVerified,
		Params: []rules.Param{{Name: "grace", Default: "1d", Description: "time after completion a derived table may take to be rebuilt on its own schedule"}},
		Check:  staleDownstream,
		Remedy: &remedy.Recipe{Build: remedy.Rebuild, Examples: []remedy.ExampleOf{remedy.ExampleRebuild}},
	})
}

// staleDownstream flags each table derived, at any depth, from a completed
// backfill's targets whose last build is older than the completion (or not
// known), once the grace is over. Each finding carries the whole rebuild
// order of the backfill's stale tables.
func staleDownstream(c *rules.Context) {
	grace := c.Duration("grace")
	eachDownstream(c, func(d downstream) {
		if over, _ := c.GraceOver(d.b, grace); !over {
			return
		}
		var stale []correlate.Derived
		for _, t := range d.rebuild {
			if !t.RebuiltSince(d.at) {
				stale = append(stale, t)
			}
		}
		order := d.order()
		for _, t := range stale {
			ev := []string{
				"derived from the backfill's target: " + chainText(t.Chain),
				fmt.Sprintf("%s completed %s; %s is %s", d.b.ID, d.done, t.Table, buildText(t)),
				orderText(order),
			}
			if d.visible {
				ev = append(ev, classifiedNote(d.b))
			}
			c.Report(rules.Issue{Backfill: d.b, Object: lineageObject(t.Table), Unit: lineageUnit(t), Severity: up(d.visible, model.SeverityMedium),
				Message: fmt.Sprintf("%s is derived from %s, rewritten by %s (completed %s), and %s: it still holds numbers from before the fix (rebuild %d of %d)",
					t.Table, t.Chain[0], d.b.ID, d.done, sinceText(t), slices.Index(order, t.Table)+1, len(order)),
				Evidence: ev})
		}
	})
}

func sinceText(t correlate.Derived) string {
	if !t.HasBuild || t.Build.At.IsZero() {
		return "no rebuild of it is known"
	}
	return "was last rebuilt " + day(t.Build.At) + ", before that"
}
