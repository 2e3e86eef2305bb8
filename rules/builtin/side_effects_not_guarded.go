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
		ID: "BF105", Name: "side-effects-not-guarded", Title: "Side effects not disabled for historical intervals",
		Rationale: "A job that sends a notification for each processed day can send months of stale messages within minutes if it is backfilled without a guard; " +
			"customer emails, invoices and alerts must be disabled for historical intervals.",
		Practice:    rules.PracticeRunSafely,
		Remediation: "Make the job skip external side effects when it runs as part of a backfill, and set side_effects_disabled: true in the plan.",
		Severity:    model.SeverityHigh, Step: model.StepPlan, Governance: true,
		Check:  sideEffectsNotGuarded,
		Remedy: &remedy.Recipe{Build: remedy.SideEffectsNotGuarded, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

// sideEffectsNotGuarded judges plans that declare side effects; a plan
// that lists none is taken at its word.
func sideEffectsNotGuarded(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		if len(b.SideEffects) == 0 || b.SideEffectsDisabled || !beforeReplay(b) {
			return
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "side_effects_disabled", "side_effects"),
			Message:  fmt.Sprintf("plan for %s has side effects (%s) that are not disabled for historical intervals", b.ID, strings.Join(b.SideEffects, ", ")),
			Evidence: []string{"side_effects: " + strings.Join(b.SideEffects, ", "), "side_effects_disabled: false"}})
	})
	// Without a plan nobody said whether the job's side effects are
	// guarded; a backfill that reruns intervals which already succeeded
	// sends whatever they sent again.
	unplanned(c.Index, func(b *model.Backfill, v model.SchedulerView, unit *model.Location) {
		if v.ReprocessBehavior != "completed" {
			return
		}
		c.Report(rules.Issue{Backfill: b, Unit: unit, Object: viewObject(v, "reprocess_behavior"), Evidence: []string{viewText(v), "no plan describes " + b.ID + " or its side effects"},
			Message: fmt.Sprintf("%s reruns intervals of %s that already succeeded (reprocess_behavior completed), and no plan says their side effects are disabled", objectName(v), b.ID)})
	})
}
