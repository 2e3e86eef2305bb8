package audit

import "github.com/bfaudit/bfaudit/model"

// findingGroups finds a backfill's findings by index. Grouping copies of
// the findings in a map cost as much memory as the findings themselves,
// twice per audit (report and refresh); a backfill's findings are now
// copied into one reused buffer when they are asked for.
type findingGroups struct {
	all []model.Finding
	ids map[model.BackfillID][]int32 // backfill id -> indexes into all
	buf []model.Finding
}

func groupFindings(fs []model.Finding) *findingGroups {
	g := &findingGroups{all: fs, ids: map[model.BackfillID][]int32{}}
	for i := range fs {
		if id := fs[i].Key; id != "" {
			g.ids[id] = append(g.ids[id], int32(i))
		}
	}
	return g
}

// of returns a backfill's findings in report order. The slice is only good
// until the next call.
func (g *findingGroups) of(id model.BackfillID) []model.Finding {
	g.buf = g.buf[:0]
	for _, i := range g.ids[id] {
		g.buf = append(g.buf, g.all[i])
	}
	return g.buf
}

// open counts a backfill's findings that no waiver hides.
func (g *findingGroups) open(id model.BackfillID) int {
	n := 0
	for _, i := range g.ids[id] {
		if !g.all[i].Waived() {
			n++
		}
	}
	return n
}

// judgedKey sums up what a backfill's lifecycle is worked out from among
// its findings (rules.Lifecycle): which they are, in report order, and
// whether each is waived. The rest it reads (the index, the backfill)
// does not change once the report is built; a finding's message, which
// its blockers quote, changes only by redaction, which redacts the
// blockers too.
func (g *findingGroups) judgedKey(id model.BackfillID) uint64 {
	// FNV-1a over the findings in place.
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, i := range g.ids[id] {
		f := &g.all[i]
		for _, c := range []byte(f.Fingerprint) {
			h = (h ^ uint64(c)) * prime
		}
		waived := uint64(0) // after the fingerprint's hex digits, it ends it too
		if f.Waived() {
			waived = 1
		}
		h = (h ^ waived) * prime
	}
	return h
}
