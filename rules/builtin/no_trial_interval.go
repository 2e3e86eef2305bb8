package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF110", Name: "no-trial-interval", Title: "Whole range launched without a trial interval",
		Rationale:   "Start with one interval, verify the output, then widen the range gradually; running one partition first also measures the cost before a bill arrives as a surprise.",
		Practice:    rules.PracticeRunSafely,
		Remediation: "Run one interval first, check its output against the requirement, then launch the rest (trial_interval: true in the plan).",
		Severity:    model.SeverityLow, Step: model.StepPlan, Governance: true,
		Check:  noTrialInterval,
		Remedy: &remedy.Recipe{Build: remedy.NoTrialInterval, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

func noTrialInterval(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		if b.TrialInterval || !beforeReplay(b) {
			return
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "trial_interval", "range"),
			Message:  fmt.Sprintf("plan for %s launches the whole range without one interval run and checked first", b.ID),
			Evidence: []string{"trial_interval: false"}})
	})
}
