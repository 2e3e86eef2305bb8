package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF026", Name: "lingering-scheduler-setting", Title: "Scheduler pool or variable made for a backfill still exists",
		Rationale: "The replay surface includes the parameters a replay was given and the slots it ran in: " +
			"a backfill's pool or variable left in the scheduler is read by the next run that finds it, long after the backfill is over. " +
			"Connections made for a replay are credentials and are judged by BF004.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindPool, model.KindVariable},
		Remediation: "Delete the pool or variable once no job uses it (airflow pools delete, airflow variables delete).",
		Severity:    model.SeverityMedium, Step: model.StepRetired,
		Supersedes: []rules.Supersede{foldsUndeclared},
		Params:     []rules.Param{{Name: "grace", Default: "3d", Description: "time after completion before a backfill's pool or variable counts as left behind"}},
		Check:      lingeringSchedulerSetting,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepRetired), Kind: model.KindPool,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("airflow-pool"), remedy.ExampleOn("airflow-variable")}},
	})
}

func lingeringSchedulerSetting(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		over, why := c.GraceOver(b, grace)
		if !over && c.Past(b.Expiry) {
			over, why = true, fmt.Sprintf("backfill %s expired %s", b.ID, day(b.Expiry))
		}
		if !over {
			return
		}
		ev := []string{stateNote(a), why}
		if n, ok := a.IntAttr("running_slots"); ok && n > 0 {
			ev = append(ev, fmt.Sprintf("%d of its slots are running tasks", n))
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Evidence: ev,
			Message: fmt.Sprintf("%s %s of %s is still in the scheduler: %s", a.Kind, nameOr(a), b.ID, why)})
	})
}
