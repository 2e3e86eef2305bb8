package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF014", Name: "undeclared-asset", Title: "Backfill machinery missing from the plan's assets to remove",
		Rationale: "The plan's cleanup section lists every asset created only for the backfill, so that nothing is forgotten when the loop is closed. " +
			"Machinery tagged with the backfill but absent from that list is what lingers after everything on the list is gone. " +
			"Elevated access (a grant, a login role, a key) belongs in the plan's elevated_access, not in assets_to_remove: the finding says which list it is missing from. " +
			"A correction notebook is the fix's evidence, not machinery, and is not reported here. " +
			"Once a rule asks to remove or revoke the artifact itself (a lingering grant, table, consumer group, flag), this finding is one line of that finding's evidence instead of a second finding.",
		Practice:    rules.PracticePlan,
		Remediation: "Add the artifact's URI to the plan's assets_to_remove (elevated access goes under elevated_access), or take the backfill label off if it is not backfill machinery.",
		Severity:    model.SeverityLow, Step: model.StepRetired,
		Check:  undeclaredAsset,
		Remedy: &remedy.Recipe{Build: remedy.Undeclared, Examples: []remedy.ExampleOf{remedy.ExampleOn("pubsub-sub")}},
	})
}

// undeclaredAsset flags live machinery of a planned backfill that its plan
// does not list. Runs go with their job, grants of a principal the plan
// declares under elevated_access are declared, the table the record
// names as the final data location is not temporary, and a notebook is
// evidence, not machinery.
func undeclaredAsset(c *rules.Context) {
	for _, id := range c.Index.IDs {
		b := c.Index.Backfills[id]
		if b.Origin != model.OriginPlan || unreadable(b) {
			continue
		}
		if len(c.Index.ByBackfill[id]) == 0 {
			continue
		}
		assets := make(map[string]bool, len(b.AssetsToRemove))
		for _, u := range b.AssetsToRemove {
			assets[u] = true
		}
		rec := c.Index.Record(id)
		principals := map[string]bool{}
		for _, e := range b.ElevatedAccess {
			principals[e.Principal] = true
		}
		for a := range c.ArtifactsOf(id) {
			switch {
			case !a.State.Live(), a.Kind == model.KindJobRun, assets[a.URI]:
				continue
			case (a.Kind == model.KindGrant || a.Kind == model.KindCredential) && principals[a.Attr(model.AttrPrincipal)]:
				continue
			case isFinalData(rec, a), declaredByOther(c, a), a.Kind == model.KindNotebook:
				continue
			}
			list := "assets_to_remove"
			if a.Kind == model.KindGrant || a.Kind == model.KindCredential {
				list = "elevated_access"
			}
			c.Report(rules.Issue{Backfill: b, Artifact: a,
				Message:  fmt.Sprintf("%s %s is tied to %s but not in its plan's %s", a.Kind, nameOr(a), b.ID, list),
				Evidence: []string{stateNote(a), fmt.Sprintf("tied by %s", a.Correlation), fmt.Sprintf("plan %s lists %d asset(s)", b.Source, len(b.AssetsToRemove))}})
		}
	}
}

// declaredByOther reports whether another backfill the artifact names
// (an alert watching two) declares it in its plan's assets_to_remove: it
// is declared machinery, whichever id its system wrote first.
func declaredByOther(c *rules.Context, a *model.Artifact) bool {
	for _, id := range c.Index.OtherKeys(a) {
		if b := c.Index.Backfill(id); b != nil && declared(b, a) {
			return true
		}
	}
	return false
}
