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
