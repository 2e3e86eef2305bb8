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
		ID: "BF113", Name: "plan-flags-not-removed", Title: "Plan names flags or dashboards it does not plan to remove",
		Rationale: "The replay surface includes the feature flags and dashboards a backfill switches or makes. " +
			"A plan that names them but leaves them out of assets_to_remove has no cleanup for them, and they linger after the replay.",
		Practice:    rules.PracticePlan,
		Remediation: "List every flag and dashboard the plan names under assets_to_remove (their URIs), or take them out of the plan if they are not the backfill's.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Check:  planFlagsNotRemoved,
		Remedy: &remedy.Recipe{Build: remedy.PlanFlagsNotRemoved, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

// planFlagsNotRemoved judges each readable plan's feature_flags and
// dashboards against its assets_to_remove. An entry counts as listed when
// an asset is the same text, or a URI ending in it ("/name" or "#name").
func planFlagsNotRemoved(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		var missing []string
		for _, n := range append(append([]string(nil), b.FeatureFlags...), b.Dashboards...) {
			if !b.ListsForRemoval(n) {
				missing = append(missing, n)
			}
		}
		if len(missing) == 0 {
			return
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "feature_flags", "dashboards"),
			Message:  fmt.Sprintf("plan for %s names %s but does not list them in assets_to_remove", b.ID, joinAnd(missing)),
			Evidence: []string{"not in assets_to_remove: " + strings.Join(missing, ", ")}})
	})
}
