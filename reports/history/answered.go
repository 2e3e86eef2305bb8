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

// gone reports whether a finding missing from this run may be resolved:
// every source it rests on answered. That is its own source and scope; the
// source that describes its backfill (a failed plans source makes the
// backfill, and every finding about it, vanish from the run), or every
// source for rows stored before that was recorded (anyBackfillSource); and,
// for a finding on no artifact (a verdict on the whole backfill such as
// "expired and still running", drawn from what every source saw of it),
// every source.
func (rw row) gone(coverage []model.Coverage) bool {
	if !answered(coverage, rw.source, rw.scope) {
		return false
	}
	switch rw.backfillSource {
	case "":
	case anyBackfillSource:
		if !answered(coverage, "", "") {
			return false
		}
	default:
		if !answered(coverage, rw.backfillSource, rw.backfillScope) {
			return false
		}
	}
	if rw.artifactURI == "" {
		return answered(coverage, "", "")
	}
	return true
}

// anyBackfillSource marks a finding whose backfill's describing source is
// not on record (migration 0002 sets it on older rows).
const anyBackfillSource = "*"

// describedAt maps each known backfill (normalized id) to where it is
// described: the plan or record source and file.
func describedAt(backfills []model.BackfillReport) map[string]model.Location {
	out := map[string]model.Location{}
	for _, b := range backfills {
		if b.Known && b.Backfill.Source.Source != "" {
			out[model.NormalizeID(b.Backfill.ID)] = b.Backfill.Source
		}
	}
	return out
}
