package collectors

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]ShardSpec{"0/4": {0, 4}, "3/4": {3, 4}, " 0/1 ": {0, 1}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "4/4", "-1/4", "1/0", "1", "a/b", "1/4/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): no error", bad)
		}
	}
}

type unitsFake struct{ units []string }

func (u *unitsFake) Collect(context.Context, Sink) error { return nil }
func (u *unitsFake) Shard(keep func(string) bool) (int, bool) {
	u.units = KeepUnits(u.units, keep)
	return len(u.units), true
}

type wholeFake struct{}

func (wholeFake) Collect(context.Context, Sink) error { return nil }

// Every unit lands in exactly one shard, and every whole source is
// collected by exactly one shard.
func TestShardInstancesPartition(t *testing.T) {
	units := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "/"}
	const n = 4
	seen := map[string]int{}
	owners := map[string]int{}
	for i := range n {
		split := &unitsFake{units: units}
		run, specs := ShardInstances([]Instance{
			{Name: "split", Collector: split},
			{Name: "whole-1", Collector: wholeFake{}},
			{Name: "whole-2", Collector: wholeFake{}},
			{Name: "plans", Type: "records", Collector: wholeFake{}},
		}, ShardSpec{i, n}, func(in Instance) bool { return in.Type == "records" })
		for _, u := range split.units {
			seen[u]++
		}
		if specs["split"].Mode != model.ShardSplit || specs["plans"].Mode != model.ShardEvery {
			t.Errorf("shard %d: modes %v", i, specs)
		}
		for _, in := range run {
			if in.Name == "whole-1" || in.Name == "whole-2" {
				owners[in.Name]++
				if specs[in.Name].Mode != model.ShardWhole || specs[in.Name].Owner != i {
					t.Errorf("shard %d runs %s with spec %+v", i, in.Name, specs[in.Name])
				}
			}
		}
	}
	for _, u := range units {
		if seen[u] != 1 {
			t.Errorf("unit %q collected by %d shards", u, seen[u])
		}
	}
	if owners["whole-1"] != 1 || owners["whole-2"] != 1 {
		t.Errorf("whole sources collected %v times", owners)
	}
}

// A source read in every shard (the plans) reads all its units in each:
// a shard with a slice of the plans would miss the others' backfills.
func TestEveryShardReadsAllUnits(t *testing.T) {
	units := []string{"plans/a.yaml", "plans/b.yaml", "plans/c.yaml", "records"}
	for i := range 3 {
		c := &unitsCollector{units: units}
		run, specs := ShardInstances([]Instance{{Name: "plans", Type: "records", Collector: c}}, ShardSpec{Index: i, Count: 3},
			func(in Instance) bool { return in.Type == "records" })
		if _, err := Run(context.Background(), run, 1, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if specs["plans"].Mode != model.ShardEvery || !slices.Equal(c.seen, units) {
			t.Errorf("shard %d: mode %s read %v; want every unit", i, specs["plans"].Mode, c.seen)
		}
	}
}
