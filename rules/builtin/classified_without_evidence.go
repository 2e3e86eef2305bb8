package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF108", Name: "classified-without-evidence", Title: "Classified data without a plan to keep the evidence",
		Rationale: "Do not rush when the backfill corrected financial records, customer-visible history, security evidence or compliance data: " +
			"you may need the replay manifest and validation queries longer than you need the job itself.",
		Practice:    rules.PracticeSensitive,
		Remediation: "Plan to keep the replay manifest and the validation evidence (keep_evidence: true) and say where they will live in the decision record.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Check:  classifiedWithoutEvidence,
		Remedy: &remedy.Recipe{Build: remedy.ClassifiedWithoutEvidence, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

// classifiedWithoutEvidence judges every plan, finished or not: the
// evidence matters most when the cleanup comes.
func classifiedWithoutEvidence(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		if !b.Classification.Classified() || b.KeepEvidence {
			return
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "keep_evidence", "classification"),
			Message:  fmt.Sprintf("plan for %s touches %s data but does not keep the manifest and validation evidence", b.ID, b.Classification),
			Evidence: []string{"classification: " + string(b.Classification), "keep_evidence: false"}})
	})
}
