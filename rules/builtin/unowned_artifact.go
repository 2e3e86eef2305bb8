package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF012", Name: "unowned-artifact", Title: "Backfill machinery with no owner",
		Rationale: "Every retirement decision needs an owner's approval, and the plan names a person responsible for closing access. " +
			"Machinery with no owner on the artifact, no plan owner, no approving owner on the record and no CODEOWNERS owner of either file has nobody to drive its cleanup.",
		Practice:    rules.PracticeInventory,
		Kinds:       model.Kinds(),
		Remediation: "Set an owner label on the artifact, or an owner in the backfill's plan (or an approving owner in its decision record, or a CODEOWNERS line for the plan's file).",
		Severity:    model.SeverityLow, Step: model.StepRetired,
		Check:  unownedArtifact,
		Remedy: &remedy.Recipe{Build: remedy.Unowned, Examples: []remedy.ExampleOf{remedy.ExampleOn("rabbit-queue")}},
	})
}

// unownedArtifact flags live machinery of known backfills that nobody owns
// after the owner fallback (artifact, plan, CODEOWNERS, record). Artifacts of unknown
// backfills are BF011's: finding their plan finds their owner.
func unownedArtifact(c *rules.Context) {
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if a.Kind == model.KindJobRun || c.Index.Owner(a) != "" {
			return
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a,
			Message:  fmt.Sprintf("%s %s of %s has no owner", a.Kind, nameOr(a), b.ID),
			Evidence: []string{stateNote(a), "no owner on the artifact, no plan owner, no approving owner on a record, no CODEOWNERS owner of either"}})
	})
}
