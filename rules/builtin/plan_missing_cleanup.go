package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF101", Name: "plan-missing-cleanup", Title: "Plan has no cleanup section",
		Rationale:   "Backfill plans should include a cleanup section before the job runs: an expiry date for temporary jobs, a named validation query, a list of assets to remove, and a person responsible for closing access.",
		Practice:    rules.PracticePlan,
		Remediation: "Add expiry, validation_query, assets_to_remove and cleanup_owner to the plan.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Check:  planMissingCleanup,
		Remedy: &remedy.Recipe{Build: remedy.PlanMissingCleanup, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

func planMissingCleanup(c *rules.Context) {
	for _, id := range c.Index.IDs {
		b := c.Index.Backfills[id]
		if b.Origin != model.OriginPlan || unreadable(b) {
			continue
		}
		var missing []string
		if b.Expiry.IsZero() {
			missing = append(missing, "expiry")
		}
		if b.ValidationQuery == "" {
			missing = append(missing, "validation_query")
		}
		if len(b.AssetsToRemove) == 0 {
			missing = append(missing, "assets_to_remove")
		}
		if b.CleanupOwner == "" && b.Owner == "" {
			missing = append(missing, "cleanup_owner")
		}
		if len(missing) == 0 {
			continue
		}
		c.Report(rules.Issue{Backfill: b,
			Message:  fmt.Sprintf("plan for %s has no %s", b.ID, joinOr(missing)),
			Evidence: []string{"missing: " + joinAnd(missing)}})
	}
}
