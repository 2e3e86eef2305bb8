package history

import "github.com/bfaudit/bfaudit/model"

// basis says what a stored finding rests on, for model.Answers: its own
// unit, the unit that described its backfill ('*' when the row predates
// that being recorded: then every source), and every source for a verdict
// on the whole backfill.
func (rw row) basis() model.Basis {
	b := model.Basis{Source: rw.source, Scope: rw.scope, Whole: model.IsWholeBackfill(rw.artifactURI)}
	switch rw.backfillSource {
	case "":
	case anyBackfillSource:
		b.DescribedUnknown = true
	default:
		b.DescribedBy = model.Location{Source: rw.backfillSource, Path: rw.backfillScope}
	}
	return b
}

// gone reports whether a finding missing this run may be resolved: every
// unit it rests on answered (DESIGN: "Nothing is ever concluded as
// resolved from a source that did not answer").
func (rw row) gone(ans model.Answers) bool { return ans.MayResolve(rw.basis()) }

// anyBackfillSource marks a finding whose backfill's describing source is
// not on record (migration 0002 sets it on older rows).
const anyBackfillSource = "*"

// describedAt maps each known backfill to where it is described: the plan
// or record source and file.
func describedAt(backfills []model.BackfillReport) map[model.BackfillID]model.Location {
	out := map[model.BackfillID]model.Location{}
	for _, b := range backfills {
		if b.Known && b.Backfill.Source.Source != "" {
			out[model.ParseID(b.Backfill.ID)] = b.Backfill.Source
		}
	}
	return out
}
