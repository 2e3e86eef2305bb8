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
		ID: "BF009", Name: "incomplete-decision-record", Title: "Decision record is missing required fields",
		Rationale:   "The record must hold purpose, range, job id, validation query, approving owner, and where final data now lives; a record without them cannot answer the questions it exists for.",
		Practice:    rules.PracticeCloseTheLoop,
		Remediation: "Fill in the missing fields of the decision record's front matter.",
		Severity:    model.SeverityLow, Step: model.StepArchived,
		Check:  incompleteDecisionRecord,
		Remedy: &remedy.Recipe{Build: remedy.IncompleteRecord, Examples: []remedy.ExampleOf{remedy.ExampleIncompleteRecord}},
	})
}

func incompleteDecisionRecord(c *rules.Context) {
	for i := range c.Index.AllRecords {
		r := &c.Index.AllRecords[i]
		missing := r.MissingFields()
		if len(missing) == 0 {
			continue
		}
		c.Report(rules.Issue{Record: r, Backfill: c.Index.Backfill(r.Key),
			Message:  fmt.Sprintf("decision record for %s lacks %s", r.BackfillID, joinAnd(missing)),
			Evidence: []string{"missing: " + strings.Join(missing, ", ")}})
	}
}
