package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF015", Name: "overdue-backfill", Title: "Backfill past its expiry and still running",
		Rationale: "The expiry date in the plan bounds how long temporary machinery may run. A backfill still running or with runs queued after it has passed is " +
			"an unplanned load on production systems and shared pools, and nobody agreed to it.",
		Practice:    rules.PracticePlan,
		Kinds:       []model.Kind{model.KindJobRun},
		Remediation: "Stop the backfill and clear its queued runs, or, if it must finish, extend the plan's expiry with the approver's consent.",
		Severity:    model.SeverityHigh, Step: model.StepVerified,
		Check:  overdueBackfill,
		Remedy: &remedy.Recipe{Build: remedy.Overdue, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

func overdueBackfill(c *rules.Context) {
	for _, id := range c.Index.IDs {
		b := c.Index.Backfills[id]
		if !c.Past(b.Expiry) {
			continue
		}
		var ev []string
		if b.Status == model.StatusRunning {
			ev = append(ev, "status running")
		}
		runs := 0
		for a := range c.ArtifactsOf(id) {
			if a.Kind != model.KindJobRun {
				continue
			}
			if s := a.Attr(model.AttrRunState); s == "queued" || s == "running" {
				runs++
				if runs <= 3 {
					ev = append(ev, fmt.Sprintf("run %s is %s", nameOr(a), s))
				}
			}
		}
		if len(ev) == 0 {
			continue
		}
		if runs > 3 {
			ev = append(ev, fmt.Sprintf("%d runs queued or running in all", runs))
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "expiry"), Evidence: append(ev, "expired "+day(b.Expiry)),
			Message: fmt.Sprintf("%s expired %s and is still running", b.ID, day(b.Expiry))})
	}
}
