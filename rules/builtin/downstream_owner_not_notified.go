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
		ID: "BF114", Name: "downstream-owner-not-notified", Title: "Downstream owner missing from those notified",
		Rationale: "The plan must include what happens to consumers rather than only to the table, " +
			"and a backfill after a bug fix or definition change must inform downstream consumers. " +
			"A plan that says consumers were notified and lists who, while lineage shows a derived table owned by someone else, missed a consumer.",
		Practice:    rules.PracticeDownstream,
		Remediation: "Tell the owners named of the change (which intervals, why, where the previous version is), then add them to notified in the plan.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Check:  downstreamOwnerNotNotified,
		Remedy: &remedy.Recipe{Build: remedy.ConsumersNotInformed, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

// downstreamOwnerNotNotified judges plans that say consumers_notified and
// list who in notified: every owner of a table derived from the targets
// (its build's owner, else the owner of the table artifact) must be there.
func downstreamOwnerNotNotified(c *rules.Context) {
	l := c.Index.Lineage()
	if l.Empty() {
		return
	}
	plans(c.Index, func(b *model.Backfill) {
		targets := l.Targets(b)
		if !b.ConsumersNotified || len(b.Notified) == 0 || len(targets) == 0 {
			return
		}
		missing := map[string][]string{}
		var unit *model.Location
		for _, d := range correlate.Unnotified(c.Index.DownstreamOwners(targets...), b.Notified) {
			if len(missing) == 0 {
				unit = lineageUnit(d.Derived)
			}
			missing[d.Owner] = append(missing[d.Owner], d.Table)
		}
		if len(missing) == 0 {
			return
		}
		names := slices.Sorted(func(yield func(string) bool) {
			for o := range missing {
				if !yield(o) {
					return
				}
			}
		})
		ev := []string{"notified: " + strings.Join(b.Notified, ", ")}
		for _, o := range names {
			ev = append(ev, fmt.Sprintf("%s owns %s", o, strings.Join(missing[o], ", ")))
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "notified", "consumers_notified"), Unit: unit, Object: "plan#notified", Evidence: ev,
			Message: fmt.Sprintf("plan for %s says consumers were notified, but %s, who own%s tables derived from its targets, %s not among them",
				b.ID, joinAnd(names), oneOr(len(names), "s", ""), oneOr(len(names), "is", "are"))})
	})
}

// oneOr picks the word for one or for many.
func oneOr(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
