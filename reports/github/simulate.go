package github

import "github.com/bfaudit/bfaudit/model"

// Simulation is what the issues would say after a sequence of runs,
// worked out with the sink's own merge rules but without GitHub. The fault
// matrix (testkit/faultmatrix) uses it to prove, for every collector, that
// a unit which did not answer ticks and closes nothing.
type Simulation struct {
	issues map[model.BackfillID]*ghIssue
}

// Simulate applies run r to the issues of prev (nil: no issue filed yet).
func Simulate(prev *Simulation, r *model.Report) *Simulation {
	existing := map[model.BackfillID]*ghIssue{}
	if prev != nil {
		for k, is := range prev.issues {
			c := *is
			existing[k] = &c
		}
	}
	ans := model.AnswersOf(r.Coverage)
	for _, w := range collectWork(r, existing) {
		var pm marker
		if w.issue != nil {
			pm = w.issue.marker
		}
		described := describedBy(pm, w.report, ans)
		if w.issue != nil && described.Source != "" && !ans.Answered(described.Source, described.Path) {
			continue // keepStale: nothing moves
		}
		m := mergeItems(pm.Items, w.findings, ans, described, w.report)
		if w.issue == nil && !blocking(m.items) {
			continue
		}
		existing[w.key] = &ghIssue{open: blocking(m.items),
			marker: marker{Backfill: w.id, Items: m.items, Described: described}}
	}
	return &Simulation{issues: existing}
}

// Ticked reports whether some issue shows the finding ticked as resolved.
func (s *Simulation) Ticked(fingerprint string) bool {
	for _, is := range s.issues {
		for _, it := range is.marker.Items {
			if it.FP == fingerprint && it.State == stateResolved {
				return true
			}
		}
	}
	return false
}

// Open reports whether the backfill's issue exists and is open.
func (s *Simulation) Open(backfillID string) (open, filed bool) {
	is, ok := s.issues[model.ParseID(backfillID)]
	if !ok {
		return false, false
	}
	return is.open, true
}
