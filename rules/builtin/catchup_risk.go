package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF106", Name: "catchup-risk", Title: "Scheduled job with catch-up on and an old start date",
		Rationale: "An unintended backfill often starts when a job with catch-up enabled and an old start date is deployed or unpaused: the scheduler immediately creates runs for every missed interval. " +
			"A backfill's own replay job is the exception while it starts within the range its plan gives: catching up over that range is the replay, and once the backfill is done the job itself is what lingers (BF001, BF002). " +
			"It is reported when it starts before that range, since catching up would replay intervals the plan does not cover.",
		Practice:    rules.PracticeRunSafely,
		Kinds:       []model.Kind{model.KindSchedulerJob},
		Remediation: "Set an explicit, recent start date and disable automatic catch-up for jobs that do not need history (Airflow: catchup=False); start a backfill's replay job at its plan's range and end it there.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Params: []rules.Param{{Name: "days", Default: "30", Description: "a start date more than this many days before the audit counts as old"}},
		Check:  catchupRisk,
		Remedy: &remedy.Recipe{Build: remedy.CatchupRisk, Examples: []remedy.ExampleOf{remedy.ExampleUntied("airflow-catchup"), remedy.ExampleOn("airflow-dag")}},
	})
}

// catchupRisk looks at every scheduler job, tied to a backfill or not: the
// risk is an unintended backfill. Paused jobs count, since unpausing is
// one of the ways it starts. The replay job of a backfill a plan describes
// is judged against the plan's range instead: catching up from the range's
// start is the replay itself, not a risk, and telling its owner to turn
// catch-up off would be the wrong fix for a job that goes with the backfill.
func catchupRisk(c *rules.Context) {
	days := c.Int("days")
	cutoff := c.Now.AddDate(0, 0, -days)
	for a := range c.Artifacts() {
		if a.Kind != model.KindSchedulerJob || !a.State.Live() || !a.BoolAttr(model.AttrCatchup) {
			continue
		}
		start := a.TimeAttr(model.AttrStartDate)
		if start.IsZero() || !start.Before(cutoff) {
			continue
		}
		ev := []string{stateNote(a), "catchup: true", "start_date: " + day(start)}
		b := c.Index.Backfill(a.Key)
		if b != nil && !b.Range.Start.IsZero() {
			if !start.Before(b.Range.Start) {
				continue // the replay over the planned range
			}
			c.Report(rules.Issue{Artifact: a, Backfill: b, Evidence: append(ev, fmt.Sprintf("plan %s: range starts %s", b.Source, day(b.Range.Start))),
				Message: fmt.Sprintf("replay job %s of %s has catch-up on and starts %s, before its plan's range starts (%s): deploying or unpausing it replays intervals the plan does not cover",
					nameOr(a), b.ID, day(start), day(b.Range.Start))})
			continue
		}
		c.Report(rules.Issue{Artifact: a, Backfill: b, Evidence: ev,
			Message: fmt.Sprintf("job %s has catch-up on and starts %s, more than %d days ago: deploying or unpausing it backfills every missed interval", nameOr(a), day(start), days)})
	}
}
