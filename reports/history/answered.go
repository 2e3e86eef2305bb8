package history

import "github.com/bfaudit/bfaudit/model"

// answered reports whether this run's coverage lets us conclude that a
// finding resting on source/scope is gone when it is missing. A source that
// failed, is absent from the run, or did not answer for the scope concludes
// nothing (DESIGN: "Nothing is ever concluded as resolved from a source that
// did not answer"). A finding that names no source could rest on any of
// them, so only a run where every source answered fully resolves it.
func answered(coverage []model.Coverage, source, scope string) bool {
	if source == "" {
		for _, c := range coverage {
			if c.Status != model.CoverageOK && c.Status != "" {
				return false
			}
		}
		return true
	}
	for _, c := range coverage {
		if c.Source == source {
			return c.Answered(scope)
		}
	}
	return false
}
