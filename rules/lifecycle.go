package rules

import (
	"fmt"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Lifecycle places a backfill in the cleanup order of backfill-cleanup.txt
// ("Close the loop in order"): a step is reached when nothing blocks it or
// any step before it. Blockers are the unwaived findings of each step plus
// missing evidence (no verification yet, no archived record, a source that
// did not answer, so nothing can be confirmed gone).
func Lifecycle(ix *correlate.Index, b *model.Backfill, findings []model.Finding) model.Lifecycle {
	blockers := map[model.Step][]string{}
	for _, f := range findings {
		if f.Waived() || f.Step == model.StepPlan {
			continue
		}
		blockers[f.Step] = append(blockers[f.Step], fmt.Sprintf("%s %s", f.RuleID, f.Message))
	}
	if !b.Status.Completed() {
		return model.Lifecycle{Reached: model.StepPlan, Next: model.StepVerified,
			Blockers: []string{fmt.Sprintf("replay not finished (status %s)", orUnknown(b.Status))}}
	}
	if b.Status.Rank() < model.StatusVerified.Rank() && (b.Validation == nil || b.Validation.Error != "") {
		blockers[model.StepVerified] = append(blockers[model.StepVerified], "no verification recorded: run the validation query and mark the plan verified")
	}
	if r := ix.Record(b.ID); r == nil || !r.Archived() {
		blockers[model.StepArchived] = append(blockers[model.StepArchived], "decision record not archived")
	}
	for _, a := range ix.ArtifactsOf(b.ID) {
		if !ix.Answered(a.Source, a.Scope) {
			blockers[model.StepRetired] = append(blockers[model.StepRetired],
				fmt.Sprintf("source %s did not answer for %s: cannot confirm its machinery is gone", a.Source, orAll(a.Scope)))
			break
		}
	}
	lc := model.Lifecycle{Reached: model.StepPlan}
	for _, s := range model.Steps() {
		if len(blockers[s]) > 0 {
			lc.Next, lc.Blockers = s, blockers[s]
			return lc
		}
		lc.Reached = s
	}
	lc.Next, lc.Done = model.StepRetired, true
	return lc
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
