package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF008", Name: "missing-decision-record", Title: "Completed backfill without an archived decision record",
		Rationale: "Completion of the replay is not completion of cleanup: the decision record (purpose, range, job id, validation query, approving owner, where the final data lives) " +
			"is what lets anyone later explain why numbers changed, and it must be archived before temporary tables and jobs are deleted.",
		Practice:    rules.PracticeCloseTheLoop,
		Remediation: "Write and archive the decision record with purpose, range, job id, validation query, approving owner and final data location.",
		Severity:    model.SeverityMedium, Step: model.StepArchived,
		Params: []rules.Param{{Name: "days", Default: "14", Description: "days after completion by which the decision record must be archived"}},
		Check:  missingDecisionRecord,
		Remedy: &remedy.Recipe{Build: remedy.MissingRecord, Examples: []remedy.ExampleOf{remedy.ExampleNoRecord}},
	})
}

func missingDecisionRecord(c *rules.Context) {
	days := c.Int("days")
	unread := c.Index.RecordsUnread()
	for _, id := range c.Index.IDs {
		b := c.Index.Backfills[id]
		if !b.Status.Completed() {
			continue
		}
		r := c.Index.Record(id)
		if r != nil && r.Archived() {
			continue
		}
		done, known := rules.Completed(b)
		if known && !c.Past(done.AddDate(0, 0, days)) {
			continue
		}
		if r == nil && len(unread) > 0 {
			// Never "no record" from a unit that did not answer: one may
			// be there. The lifecycle says the step is unknown, and a
			// history store carries this finding as last seen.
			continue
		}
		state := "no decision record"
		if r != nil {
			state = fmt.Sprintf("decision record %s is not archived", r.Source)
		}
		when := fmt.Sprintf("completed %s, more than %d days ago", day(done), days)
		if !known {
			when = fmt.Sprintf("status %s, completion time unknown", b.Status)
		}
		c.Report(rules.Issue{Backfill: b, Message: fmt.Sprintf("%s for %s (%s)", state, b.ID, when), Evidence: []string{state, when}})
	}
}
