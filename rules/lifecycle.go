package rules

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Lifecycle places a backfill in the cleanup order of docs/practice.md
// ("Close the loop in order"): a step is reached when nothing blocks it or
// any step before it. Blockers are the unwaived findings of each step plus
// missing evidence (no verification yet, no archived record) and silence:
// a unit that did not answer may hold machinery, so nothing can be
// confirmed gone there. A step is done only when every unit that could
// hold its machinery answered. When silence alone keeps the next step
// open (no finding, no other missing evidence), the step is neither done
// nor known to be open: Unknown names the sources whose answer is
// missing, and the lifecycle's State is "unknown".
//
// Which step silence keeps open: with a history store, an artifact
// remembered from a unit that did not answer keeps the earliest step that
// a rule removing its kind blocks (a grant: access revoked; a consumer
// group: archived, its range is recorded first); without one, nobody can
// say what a silent source held, and it keeps the last step, retired,
// open for every completed backfill. A lineage source that did not answer
// keeps "verified" open for a backfill with targets: its downstream
// rebuild cannot be confirmed.
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
	r := ix.Record(b.Key)
	unreadRecords := ix.RecordsUnread()
	if r != nil && !r.Archived() || r == nil && len(unreadRecords) == 0 {
		evidence[model.StepArchived] = append(evidence[model.StepArchived], "decision record not archived")
	}
	// Silence, by step: what it says and which sources.
	silence := map[model.Step][]string{}
	silentBy := map[model.Step][]string{}
	hush := func(s model.Step, source, text string) {
		if !slices.Contains(silentBy[s], source) {
			silentBy[s] = append(silentBy[s], source)
			silence[s] = append(silence[s], text)
		}
	}
	if r == nil && len(unreadRecords) > 0 {
		// The record may be in a unit that did not answer: neither done
		// nor known to be missing.
		for _, u := range unreadRecords {
			hush(model.StepArchived, u.Source, fmt.Sprintf("%s did not answer: cannot tell whether this backfill's decision record is there and archived", u.Unit))
		}
	}
	for _, a := range ix.ArtifactsOf(b.Key) {
		if !ix.Answered(a.Source, a.Scope) {
			hush(stepOfKind(a.Kind), a.Source,
				fmt.Sprintf("source %s did not answer for %s: cannot confirm its machinery is gone", a.Source, orAll(a.Scope)))
		}
	}
	if silent := silentSources(ix); len(silent) > 0 && !ix.Remembered {
		what, it := "source "+silent[0], "it"
		if len(silent) > 1 {
			what, it = "sources "+strings.Join(silent, ", "), "they"
		}
		text := fmt.Sprintf("%s did not answer fully and no history store says what %s held: cannot confirm this backfill's machinery there is gone", what, it)
		for i, src := range silent {
			if i == 0 {
				hush(model.StepRetired, src, text)
			} else if !slices.Contains(silentBy[model.StepRetired], src) {
				silentBy[model.StepRetired] = append(silentBy[model.StepRetired], src)
			}
		}
	}
	// Lineage is not remembered as machinery: a lineage source that did
	// not answer leaves the downstream rebuild of a backfill with targets
	// unconfirmed, with or without history.
	if len(b.Targets) > 0 {
		for _, c := range ix.Estate.Coverage {
			if c.Lineage && !c.Full() {
				hush(model.StepVerified, c.Source, fmt.Sprintf(
					"lineage source %s did not answer fully: cannot confirm the tables derived from this backfill's targets were rebuilt", c.Source))
			}
		}
	}
	blocks := func(f *model.Finding, s model.Step) bool { return !f.Waived() && f.Step == s }
	lc := model.Lifecycle{Reached: model.StepPlan}
	for _, s := range model.Steps() {
		byFinding := false
		for i := 0; i < len(findings) && !byFinding; i++ {
			byFinding = blocks(&findings[i], s)
		}
		if byFinding || len(evidence[s]) > 0 || len(silence[s]) > 0 {
			// Only the blocking step's findings are put in words: a
			// backfill can have thousands. The list is made its size at
			// once: the report keeps it, so no spare room is left in it.
			n := len(evidence[s]) + len(silence[s])
			for i := range findings {
				if blocks(&findings[i], s) {
					n++
				}
			}
			list := make([]string, 0, n)
			for i := range findings {
				if f := &findings[i]; blocks(f, s) {
					list = append(list, f.RuleID+" "+f.Message)
				}
			}
			lc.Next, lc.Blockers = s, append(append(list, evidence[s]...), silence[s]...)
			if !byFinding && len(evidence[s]) == 0 {
				lc.Unknown = slices.Sorted(slices.Values(silentBy[s]))
			}
			return lc
		}
		lc.Reached = s
	}
	lc.Next, lc.Done = model.StepRetired, true
	return lc
}

// kindSteps is, for each kind of machinery, the earliest cleanup step a
// rule that removes it blocks (its remedy's kind), read once from the
// registered rules.
var kindSteps = sync.OnceValue(func() map[model.Kind]model.Step {
	out := map[model.Kind]model.Step{}
	for _, r := range All() {
		if r.Remedy == nil || r.Remedy.Kind == "" || r.Step == model.StepPlan {
			continue
		}
		if s, ok := out[r.Remedy.Kind]; !ok || r.Step < s {
			out[r.Remedy.Kind] = r.Step
		}
	}
	return out
})

// stepOfKind is the step silence about an artifact of kind k keeps open:
// the earliest a rule removing that kind blocks, else retired.
func stepOfKind(k model.Kind) model.Step {
	if s, ok := kindSteps()[k]; ok {
		return s
	}
	return model.StepRetired
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
