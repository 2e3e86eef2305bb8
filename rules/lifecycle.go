package rules

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Lifecycle places a backfill in the cleanup order of backfill-cleanup.txt
// ("Close the loop in order"): a step is reached when nothing blocks it or
// any step before it. Blockers are the unwaived findings of each step plus
// missing evidence (no verification yet, no archived record, a source that
// did not answer, so nothing can be confirmed gone).
func Lifecycle(ix *correlate.Index, b *model.Backfill, findings []model.Finding) model.Lifecycle {
	if !b.Status.Completed() {
		return model.Lifecycle{Reached: model.StepPlan, Next: model.StepVerified,
			Blockers: []string{fmt.Sprintf("replay not finished (status %s)", orUnknown(b.Status))}}
	}
	// Missing evidence, listed after the findings of its step.
	evidence := map[model.Step][]string{}
	if b.Status.Rank() < model.StatusVerified.Rank() && (b.Validation == nil || b.Validation.Error != "") {
		evidence[model.StepVerified] = append(evidence[model.StepVerified], "no verification recorded: run the validation query and mark the plan verified")
	}
	if r := ix.Record(b.Key); r == nil || !r.Archived() {
		evidence[model.StepArchived] = append(evidence[model.StepArchived], "decision record not archived")
	}
	for _, a := range ix.ArtifactsOf(b.Key) {
		if !ix.Answered(a.Source, a.Scope) {
			evidence[model.StepRetired] = append(evidence[model.StepRetired],
				fmt.Sprintf("source %s did not answer for %s: cannot confirm its machinery is gone", a.Source, orAll(a.Scope)))
			break
		}
	}
	if silent := silentSources(ix); len(silent) > 0 && !ix.Remembered {
		what, it := "source "+silent[0], "it"
		if len(silent) > 1 {
			what, it = "sources "+strings.Join(silent, ", "), "they"
		}
		evidence[model.StepRetired] = append(evidence[model.StepRetired],
			fmt.Sprintf("%s did not answer fully and no history store says what %s held: cannot confirm this backfill's machinery there is gone", what, it))
	}
	blocks := func(f *model.Finding, s model.Step) bool { return !f.Waived() && f.Step == s }
	lc := model.Lifecycle{Reached: model.StepPlan}
	for _, s := range model.Steps() {
		blocked := len(evidence[s]) > 0
		for i := 0; i < len(findings) && !blocked; i++ {
			blocked = blocks(&findings[i], s)
		}
		if blocked {
			// Only the blocking step's findings are put in words: a
			// backfill can have thousands.
			var list []string
			for i := range findings {
				if f := &findings[i]; blocks(f, s) {
					list = append(list, f.RuleID+" "+f.Message)
				}
			}
			lc.Next, lc.Blockers = s, append(list, evidence[s]...)
			return lc
		}
		lc.Reached = s
	}
	lc.Next, lc.Done = model.StepRetired, true
	return lc
}

// silentSources names the sources of the run that did not answer fully.
func silentSources(ix *correlate.Index) []string {
	var out []string
	for _, c := range ix.Estate.Coverage {
		if !c.Full() {
			out = append(out, c.Source)
		}
	}
	return out
}

func orUnknown(s model.Status) string {
	if s == "" {
		return "unknown"
	}
	return string(s)
}

func orAll(scope string) string {
	if scope == "" {
		return "all scopes"
	}
	return scope
}
