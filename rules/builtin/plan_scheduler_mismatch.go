package builtin

import (
	"fmt"
	"slices"
	"strings"

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
			report := func(key, planned, runs string, raise bool) {
				unit := v.Source
				c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, key), Unit: &unit, Severity: up(raise, model.SeverityMedium),
					Object:   "scheduler:" + v.Source.String() + "#" + key,
					Message:  fmt.Sprintf("plan for %s says %s %s, but %s runs it with %s", b.ID, key, planned, objectName(v), runs),
					Evidence: []string{fmt.Sprintf("plan %s: %s: %s", b.Source, key, planned), viewText(v)}})
			}
			if b.Concurrency > 0 && v.MaxActiveRuns > 0 && v.MaxActiveRuns != b.Concurrency {
				report("concurrency", fmt.Sprint(b.Concurrency), fmt.Sprintf("max_active_runs %d", v.MaxActiveRuns), v.MaxActiveRuns > b.Concurrency)
			}
			if b.Pool != "" && v.Pool != "" && !samePools(b.Pool, v.Pool) {
				report("pool", fmt.Sprintf("%q", b.Pool), fmt.Sprintf("pool %q", v.Pool), false)
			}
			if v.DependsOnPast != nil && *v.DependsOnPast != b.DependsOnPast {
				report("depends_on_past", fmt.Sprint(b.DependsOnPast), fmt.Sprintf("depends_on_past %t", *v.DependsOnPast), b.DependsOnPast)
			}
			if b.ReprocessBehavior != "" && v.ReprocessBehavior != "" && b.ReprocessBehavior != v.ReprocessBehavior {
				report("reprocess_behavior", b.ReprocessBehavior, "reprocess_behavior "+v.ReprocessBehavior, v.ReprocessBehavior == "completed")
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

// samePools compares a plan's pool with the pools a scheduler's tasks use
// (comma-separated): the same set.
func samePools(plan, sched string) bool {
	split := func(s string) []string {
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(split(plan), split(sched))
}
