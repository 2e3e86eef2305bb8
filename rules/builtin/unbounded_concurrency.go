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
		ID: "BF103", Name: "unbounded-concurrency", Title: "Backfill without a concurrency cap or a dedicated pool",
		Rationale: "A single backfill command can launch hundreds of runs against production systems. Cap concurrency with a dedicated queue or pool so historical runs do not starve current ones" +
			"; backfills need bounded parallelism and isolated compute, or every backfill is also an availability risk" +
			".",
		Practice:    rules.PracticeRunSafely,
		Kinds:       []model.Kind{model.KindSchedulerJob},
		Remediation: "Set concurrency (a small number; 1 for stateful jobs) and a dedicated low-priority pool or queue in the plan, and on the scheduler's job (max_active_runs, pool).",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Params: []rules.Param{{Name: "max_concurrency", Default: "16", Description: "a concurrency cap above this counts as no cap"}},
		Check:  unboundedConcurrency,
		Remedy: &remedy.Recipe{Build: remedy.UnboundedConcurrency, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

// unboundedConcurrency judges plans that have not run yet, and the
// scheduler jobs of backfills still running. A bulk backfill is one run,
// so only its pool matters.
func unboundedConcurrency(c *rules.Context) {
	limit := c.Int("max_concurrency")
	plans(c.Index, func(b *model.Backfill) {
		if !beforeReplay(b) {
			return
		}
		var why, keys []string
		if b.Strategy != model.StrategyBulk {
			switch {
			case b.Concurrency == 0:
				why, keys = append(why, "sets no concurrency cap"), append(keys, "concurrency", "strategy")
			case b.Concurrency > limit:
				why, keys = append(why, fmt.Sprintf("allows %d concurrent runs, above the cap of %d", b.Concurrency, limit)), append(keys, "concurrency")
			}
		}
		if !dedicated(b.Pool) {
			why, keys = append(why, "runs in no dedicated pool or queue"), append(keys, "pool")
		}
		if len(why) == 0 {
			return
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, keys...),
			Message:  fmt.Sprintf("plan for %s %s", b.ID, joinAnd(why)),
			Evidence: []string{fmt.Sprintf("concurrency: %d", b.Concurrency), fmt.Sprintf("pool: %q", b.Pool)}})
	})
	unplanned(c.Index, func(b *model.Backfill, v model.SchedulerView, unit *model.Location) {
		var why []string
		if v.MaxActiveRuns <= 0 || v.MaxActiveRuns > limit {
			why = append(why, fmt.Sprintf("max_active_runs %d", v.MaxActiveRuns))
		}
		if v.Pool != "" && !dedicated(v.Pool) { // "" is unknown: the tasks were not read
			why = append(why, fmt.Sprintf("pool %q is not dedicated", v.Pool))
		}
		if len(why) == 0 {
			return
		}
		c.Report(rules.Issue{Backfill: b, Unit: unit, Object: viewObject(v, "concurrency"), Evidence: []string{viewText(v), "no plan describes " + b.ID},
			Message: fmt.Sprintf("%s runs %s without a plan and is not bounded: %s", objectName(v), b.ID, strings.Join(why, ", "))})
	})
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if b.Status.Completed() || a.State == model.StatePaused || a.State == model.StateDisabled {
			return
		}
		var why []string
		if pools, ok := a.Attributes.Lookup(model.AttrPool); ok && !dedicated(pools) {
			why = append(why, fmt.Sprintf("pool %q is not dedicated", pools))
		}
		if n, ok := a.IntAttr(model.AttrMaxActiveRuns); ok && (n <= 0 || n > int64(limit)) {
			why = append(why, fmt.Sprintf("max_active_runs %d", n))
		}
		if len(why) == 0 {
			return
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Evidence: append([]string{stateNote(a)}, why...),
			Message: fmt.Sprintf("job %s of %s is not bounded: %s", nameOr(a), b.ID, strings.Join(why, ", "))})
	})
}

// dedicated reports whether a pool (or a comma-separated list of the pools
// a job's tasks use) is a backfill pool rather than the scheduler's default.
func dedicated(pools string) bool {
	if strings.TrimSpace(pools) == "" {
		return false
	}
	for _, p := range strings.Split(pools, ",") {
		switch strings.TrimSpace(p) {
		case "", "default_pool", "default":
			return false
		}
	}
	return true
}
