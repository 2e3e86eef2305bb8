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
