package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// CollectShard collects one shard of the estate (`collect --shard I/N`):
// each source that can divide its units collects its slice, each other
// source is collected whole by one shard, and plan sources are read by
// every shard (the others filter by the assets plans declare). Every
// source's coverage records how it took part; a source collected by
// another shard is recorded failed here, so this estate audited alone
// concludes nothing about it. MergeEstates puts the shards together.
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
	for _, in := range instances {
		ss := specs[in.Name]
		if ss.Mode != model.ShardElsewhere {
			continue
		}
		est.Coverage = append(est.Coverage, model.Coverage{
			Source: in.Name, System: in.Type, Status: model.CoverageFailed, Shard: &ss,
			Error: fmt.Sprintf("collected whole by shard %s, not by this one (%s): audit the shards together with --from", model.ShardName(ss.Owner, ss.Count), spec),
		})
	}
	collectors.Sort(est)
	return est, err
}
