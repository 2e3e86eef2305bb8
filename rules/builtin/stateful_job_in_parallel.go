package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF104", Name: "stateful-job-in-parallel", Title: "Stateful job backfilled in parallel or in reverse",
		Rationale: "Jobs that depend on the previous interval, such as running balances or cumulative counters, must be backfilled in strict chronological order with a concurrency limit of one; " +
			"reverse chronological order breaks jobs that depend on prior state.",
		Practice:    rules.PracticeRunSafely,
		Remediation: "Use the interval strategy with concurrency 1 for depends-on-past jobs.",
		Severity:    model.SeverityHigh, Step: model.StepPlan, Governance: true,
		Check:  statefulJobInParallel,
		Remedy: &remedy.Recipe{Build: remedy.StatefulInParallel, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

func statefulJobInParallel(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		if !b.DependsOnPast || !beforeReplay(b) {
			return
		}
		var why, key string
		switch {
		case b.Strategy == model.StrategyParallel || b.Strategy == model.StrategyReverse:
			why, key = fmt.Sprintf("strategy %s", b.Strategy), "strategy"
		case b.Concurrency > 1:
			why, key = fmt.Sprintf("concurrency %d", b.Concurrency), "concurrency"
		default:
			return
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, key),
			Message:  fmt.Sprintf("plan for %s depends on past intervals but runs with %s", b.ID, why),
			Evidence: []string{"depends_on_past: true", why}})
	})
	unplanned(c.Index, func(b *model.Backfill, v model.SchedulerView, unit *model.Location) {
		if v.DependsOnPast == nil || !*v.DependsOnPast || v.MaxActiveRuns <= 1 {
			return
		}
		c.Report(rules.Issue{Backfill: b, Unit: unit, Object: viewObject(v, "depends_on_past"), Evidence: []string{viewText(v), "no plan describes " + b.ID},
			Message: fmt.Sprintf("%s runs %s, whose tasks depend on past intervals, with max_active_runs %d", objectName(v), b.ID, v.MaxActiveRuns)})
	})
}
