package correlate

import (
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Served is every backfill an artifact names: the one it is tied to and
// the others its collector found beside it (an alert watching
// backfill_id=~"bf-1|bf-2", a silence or flag naming two). An artifact
// made for several backfills is needed until the last of them is over, so
// rules judge it against all of them, never against whichever id its
// system happened to write first.
type Served struct {
	// IDs are all the ids named, normal form, sorted; the tie included.
	IDs []model.BackfillID
	// Backfills are the known ones among them (a plan or a scheduler
	// describes them), in IDs order.
	Backfills []*model.Backfill
	// Unknown are the ids no plan or scheduler object describes: nothing
	// says whether they are over.
	Unknown []model.BackfillID
}

// BackfillsOf returns what an artifact of the index serves. An artifact
// tied to no backfill serves none.
func (ix *Index) BackfillsOf(a *model.Artifact) Served {
	var s Served
	if a.Key == "" {
		return s
	}
	others := ix.OtherKeys(a)
	s.IDs = append(make([]model.BackfillID, 0, 1+len(others)), a.Key)
	s.IDs = append(s.IDs, others...)
	slices.Sort(s.IDs)
	s.IDs = slices.Compact(s.IDs)
	for _, id := range s.IDs {
		if b := ix.Backfills[id]; b != nil {
			s.Backfills = append(s.Backfills, b)
		} else {
			s.Unknown = append(s.Unknown, id)
		}
	}
	return s
}

// Serves reports whether an artifact names the backfill, as its tie or
// among its others.
func (ix *Index) Serves(a *model.Artifact, id model.BackfillID) bool {
	return a.Key != "" && (a.Key == id || slices.Contains(ix.OtherKeys(a), id))
}

// OtherKeys are the further backfills a tied artifact names
// (model.AttrOtherBackfills) in normal form, sorted, its tie left out. They
// are read from the attribute at each call, not kept on the artifact: few
// artifacts name two backfills, and a field on every artifact cost a
// million-artifact estate 23 MB through the whole audit.
func (ix *Index) OtherKeys(a *model.Artifact) []model.BackfillID {
	if a.Key == "" {
		return nil
	}
	return otherKeys(a.Attr(model.AttrOtherBackfills), a.Key)
}

// otherKeys parses an artifact's other_backfills into normal-form ids,
// sorted and without duplicates, the tie left out.
func otherKeys(attr string, tie model.BackfillID) []model.BackfillID {
	if attr == "" {
		return nil
	}
	var out []model.BackfillID
	for _, v := range strings.Split(attr, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if id := model.ParseID(v); id != "" && id != tie {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
