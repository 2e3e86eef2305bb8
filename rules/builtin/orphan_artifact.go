package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF011", Name: "orphan-artifact", Title: "Artifact tagged with a backfill nobody knows",
		Rationale:   "Every asset created for a backfill belongs on its inventory; machinery tagged with an id that no plan or record describes has no owner approval, no expiry and no cleanup checklist.",
		Practice:    rules.PracticeInventory,
		Remediation: "Find the backfill the artifact came from and add its plan and decision record, or retire the artifact.",
		Severity:    model.SeverityMedium, Step: model.StepRetired,
		Check:  orphanArtifact,
		Remedy: &remedy.Recipe{Build: remedy.Orphan, Examples: []remedy.ExampleOf{remedy.ExampleOrphan("pg-table")}},
	})
}

func orphanArtifact(c *rules.Context) {
	for _, id := range c.Index.Unknown {
		for a := range c.ArtifactsOf(id) {
			if !a.State.Live() {
				continue
			}
			c.Report(rules.Issue{Artifact: a,
				Message:  fmt.Sprintf("%s %s is tagged with backfill %s, which no plan or record describes", a.Kind, nameOr(a), a.BackfillID),
				Evidence: []string{stateNote(a), fmt.Sprintf("tied to %s by %s", a.BackfillID, a.Correlation)}})
		}
	}
}
