package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF115", Name: "plan-scheduler-mismatch", Title: "The scheduler runs the backfill differently from its plan",
		Rationale: "The plan's concurrency cap, pool, ordering and reprocessing choice are what made the backfill safe to approve" +
			"; a single backfill command can launch hundreds of runs. " +
			"When the scheduler's own backfill object says otherwise, the scheduler is what runs.",
		Practice:    rules.PracticeRunSafely,
		Remediation: "Make the scheduler's backfill match the plan (max_active_runs, pool, depends_on_past, reprocess behaviour), or change the plan and have it approved again.",
		Severity:    model.SeverityMedium, Ladder: upRung(model.SeverityMedium, "when the scheduler runs the backfill otherwise than its plan says",
			"when the scheduler allows more concurrent runs than the plan, or reruns intervals that already succeeded"),
		Step: model.StepPlan, Governance: true,
		Check:  planSchedulerMismatch,
		Remedy: &remedy.Recipe{Build: remedy.SchedulerMismatch, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

// planSchedulerMismatch compares each plan with every scheduler object of
// its backfill still running or paused: each setting that differs is one
// finding naming both values.
func planSchedulerMismatch(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		for _, v := range b.Scheduled {
			if !v.Running && !v.Paused {
				continue
			}
			for _, d := range v.Differences(b) {
				unit := v.Source
				c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, d.Key), Unit: &unit, Severity: up(d.Riskier, model.SeverityMedium),
					Object:   "scheduler:" + v.Source.String() + "#" + d.Key,
					Message:  fmt.Sprintf("plan for %s says %s %s, but %s runs it with %s", b.ID, d.Key, d.Planned, objectName(v), d.Runs),
					Evidence: []string{fmt.Sprintf("plan %s: %s: %s", b.Source, d.Key, d.Planned), viewText(v)}})
			}
		}
	})
}

func objectName(v model.SchedulerView) string {
	if v.Object != "" {
		return v.Object
	}
	return "the scheduler (" + v.Source.String() + ")"
}
