package audit

import (
	"context"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// CollectShard collects one shard of the estate (`collect --shard I/N`):
// each source reads its slice of the units it declares, and plan sources
// are read whole by every shard (the others filter by the assets plans
// declare). Every source's coverage records how it took part, so this
// estate audited alone concludes nothing about the units of other
// shards. MergeEstates puts the shards together.
func CollectShard(ctx context.Context, instances []collectors.Instance, sel *correlate.Selector, limit int, now time.Time, spec collectors.ShardSpec) (*model.Estate, error) {
	run, specs := collectors.ShardInstances(instances, spec, func(in collectors.Instance) bool { return in.Type == planSourceType })
	// Validation queries run in one shard only, the one the validation
	// source's name falls in, so that the shards agree on each plan.
	est, err := collectWith(ctx, run, sel, limit, now, func(ctx context.Context, est *model.Estate) {
		view := &model.Estate{Coverage: est.Coverage}
		var idx []int
		for i, b := range est.Backfills {
			if b.ValidationSource != "" && collectors.ShardOf(b.ValidationSource, spec.Count) == spec.Index {
				view.Backfills = append(view.Backfills, b)
				idx = append(idx, i)
			}
		}
		verify(ctx, view, instances)
		for j, i := range idx {
			est.Backfills[i].Validation = view.Backfills[j].Validation
		}
		est.Coverage = view.Coverage
	})
	for i := range est.Coverage {
		c := &est.Coverage[i]
		if ss, ok := specs[c.Source]; ok {
			c.Shard = &ss
		}
	}
	collectors.Sort(est)
	return est, err
}
