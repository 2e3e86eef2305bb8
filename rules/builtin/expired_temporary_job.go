package builtin

import (
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF001", Name: "expired-temporary-job", Title: "Backfill job still scheduled after expiry",
		Rationale: "A replay job copied into the scheduler looks permanent surprisingly fast; while it stays enabled it can run again over production data. " +
			"Plans must carry an expiry date for temporary jobs, and the job goes once the replay is verified. " +
			"A finished run object that stays in the cluster (a Kubernetes Job without ttlSecondsAfterFinished) is the same leftover machinery.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindSchedulerJob, model.KindJobRun},
		Remediation: "Delete the job from the scheduler, or convert it into an owned, tested runbook entry (set the runbook attribute) if it is needed for future recovery.",
		Severity:    model.SeverityMedium, Step: model.StepRetired,
		Supersedes: []rules.Supersede{foldsUndeclared},
		Params:     []rules.Param{{Name: "grace", Default: "7d", Description: "time after completion before a backfill job counts as lingering"}},
		Check:      expiredTemporaryJob,
		Remedy: &remedy.Recipe{Build: remedy.ExpiredJob, Kind: model.KindSchedulerJob, State: model.StateEnabled,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("airflow-dag"), remedy.ExampleOn("k8s-cronjob"), remedy.ExampleOn("k8s-job")}},
	})
}

// expiredTemporaryJob flags enabled backfill jobs past the backfill's expiry
// or its completion plus grace. Paused and disabled jobs, and jobs with no
// schedule (they run only when triggered), are BF002's.
func expiredTemporaryJob(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if a.Kind != model.KindSchedulerJob || a.State == model.StatePaused || a.State == model.StateDisabled || a.BoolAttr(model.AttrTriggerOnly) || a.Attr(model.AttrRunbook) != "" {
			return
		}
		var why string
		switch {
		case c.Past(b.Expiry):
			why = fmt.Sprintf("backfill %s expired %s", b.ID, day(b.Expiry))
		case c.Past(a.ExpiresAt.Time()):
			why = fmt.Sprintf("the job's own expiry passed %s", day(a.ExpiresAt))
		default:
			over, ev := c.GraceOver(b, grace)
			if !over {
				return
			}
			why = ev
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a,
			Message:  fmt.Sprintf("job %s is still scheduled: %s", a.Name, why),
			Evidence: []string{stateNote(a), why}})
	})
	finishedRunsLeftBehind(c, grace)
}

// finishedRunsLeftBehind flags run objects that outlive their run (a
// Kubernetes Job without ttlSecondsAfterFinished): past their own expiry,
// or finished longer ago than the grace with no expiry at all. Runs that
// are only history in a scheduler's database (Airflow DAG runs) are not
// machinery and are never marked finished.
func finishedRunsLeftBehind(c *rules.Context, grace time.Duration) {
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if a.Kind != model.KindJobRun || !a.BoolAttr(model.AttrFinished) {
			return
		}
		var why string
		switch {
		case !a.ExpiresAt.IsZero():
			if !c.Past(a.ExpiresAt.Time()) {
				return // its TTL will remove it
			}
			why = fmt.Sprintf("its TTL ran out %s but it is still there", day(a.ExpiresAt))
		case !a.ModifiedAt.IsZero() && c.Past(a.ModifiedAt.Time().Add(grace)):
			why = fmt.Sprintf("finished %s with no TTL to remove it", day(a.ModifiedAt))
		default:
			return
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a,
			Message:  fmt.Sprintf("finished run %s is left behind: %s", nameOr(a), why),
			Evidence: []string{stateNote(a), why}})
	})
}
