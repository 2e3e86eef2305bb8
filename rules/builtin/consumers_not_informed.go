package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF111", Name: "consumers-not-informed", Title: "Bug-fix or definition-change backfill without downstream notice",
		Rationale: "A backfill after a bug fix or a definition change alters numbers people have already seen: downstream consumers must be informed" +
			", and the plan must include what happens to consumers rather than only to the table" +
			".",
		Practice:    rules.PracticeDownstream,
		Remediation: "Tell downstream consumers which intervals change and why (keep the previous version for comparison), then set consumers_notified: true.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Check:  consumersNotInformed,
		Remedy: &remedy.Recipe{Build: remedy.ConsumersNotInformed, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

// consumersNotInformed judges every plan, finished or not: consumers still
// need the notice after the numbers changed.
func consumersNotInformed(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		if b.ConsumersNotified || (b.Trigger != model.TriggerBugFix && b.Trigger != model.TriggerDefinitionChange) {
			return
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "consumers_notified", "trigger"),
			Message:  fmt.Sprintf("%s backfill %s changes published numbers and its consumers were not notified", b.Trigger, b.ID),
			Evidence: []string{"trigger: " + string(b.Trigger), "consumers_notified: false"}})
	})
}
