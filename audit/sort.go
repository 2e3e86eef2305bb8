package audit

import (
	"sort"

	"github.com/bfaudit/bfaudit/model"
)

func sortBackfills(bs []model.BackfillReport) {
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].Backfill.ID < bs[j].Backfill.ID })
}
