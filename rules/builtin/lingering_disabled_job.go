package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF002", Name: "lingering-disabled-job", Title: "Paused one-off backfill job left in the scheduler",
		Rationale: "A disabled one-off job is not a recovery tool: nobody owns or tests it, and unpausing it replays old intervals. " +
			"If the job is useful for future recovery it should become an owned, tested runbook entry instead.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindSchedulerJob},
		Remediation: "Delete the paused job, or convert it into an owned, tested runbook entry and record it (runbook attribute).",
		Severity:    model.SeverityLow, Step: model.StepRetired,
		Supersedes: []rules.Supersede{foldsUndeclared},
		Params:     []rules.Param{{Name: "grace", Default: "7d", Description: "time after completion before a paused job counts as left behind"}},
		Check:      lingeringDisabledJob,
		Remedy: &remedy.Recipe{Build: remedy.DisabledJob, Kind: model.KindSchedulerJob, State: model.StatePaused,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("airflow-paused")}},
	})
}

// lingeringDisabledJob flags a backfill job left in the scheduler that
// does not run by itself: paused, disabled, or with no schedule (it runs
// only when someone triggers it).
func lingeringDisabledJob(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		triggerOnly := a.BoolAttr(model.AttrTriggerOnly) && a.State.Live()
		if (a.State != model.StatePaused && a.State != model.StateDisabled && !triggerOnly) || a.Attr(model.AttrRunbook) != "" {
			return
		}
		over, why := c.GraceOver(b, grace)
		if !over && c.Past(b.Expiry) {
			over, why = true, fmt.Sprintf("backfill %s expired %s", b.ID, day(b.Expiry))
		}
		if !over {
			return
		}
		what := string(a.State)
		ev := []string{stateNote(a), why}
		if triggerOnly && a.State != model.StatePaused && a.State != model.StateDisabled {
			what = "trigger-only"
			ev = []string{stateNote(a), "it has no schedule: it runs only when someone triggers it", why}
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a,
			Message:  fmt.Sprintf("%s job %s is left in the scheduler instead of a runbook entry", what, a.Name),
			Evidence: ev})
	})
}
