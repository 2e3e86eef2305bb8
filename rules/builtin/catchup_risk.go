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
		Rationale:   "An unintended backfill often starts when a job with catch-up enabled and an old start date is deployed or unpaused: the scheduler immediately creates runs for every missed interval.",
		Practice:    rules.PracticeRunSafely,
		Kinds:       []model.Kind{model.KindSchedulerJob},
		Remediation: "Set an explicit, recent start date and disable automatic catch-up for jobs that do not need history (Airflow: catchup=False).",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Params: []rules.Param{{Name: "days", Default: "30", Description: "a start date more than this many days before the audit counts as old"}},
		Check:  catchupRisk,
		Remedy: &remedy.Recipe{Build: remedy.CatchupRisk, Examples: []remedy.ExampleOf{remedy.ExampleOn("airflow-catchup")}},
	})
}

// catchupRisk looks at every scheduler job, tied to a backfill or not: the
// risk is an unintended backfill. Paused jobs count, since unpausing is
// one of the ways it starts.
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
		c.Report(rules.Issue{Artifact: a, Backfill: c.Index.Backfill(a.Key),
			Message:  fmt.Sprintf("job %s has catch-up on and starts %s, more than %d days ago: deploying or unpausing it backfills every missed interval", nameOr(a), day(start), days),
			Evidence: []string{stateNote(a), "catchup: true", "start_date: " + day(start)}})
	}
}
