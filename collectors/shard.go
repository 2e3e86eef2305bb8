package collectors

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// ShardSpec is one of Count deterministic slices of every source's units;
// Index is 0-based, as Kubernetes' JOB_COMPLETION_INDEX.
type ShardSpec struct {
	Index, Count int
}

// ParseShard reads "I/N": shard I (0-based, 0 <= I < N) of N.
func ParseShard(s string) (ShardSpec, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return ShardSpec{}, fmt.Errorf("%q: expected I/N, shard I (0-based) of N, like 0/4", s)
	case n < 1:
		return ShardSpec{}, fmt.Errorf("%q: the number of shards must be at least 1", s)
	case i < 0 || i >= n:
		return ShardSpec{}, fmt.Errorf("%q: the shard index is 0-based, from 0 to %d", s, n-1)
	}
	return ShardSpec{Index: i, Count: n}, nil
}

func (s ShardSpec) String() string { return model.ShardName(s.Index, s.Count) }

// ShardOf is the shard a unit or source name belongs to: a stable hash
// (FNV-1a), so every shard, on any machine, divides the same way.
func ShardOf(name string, count int) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % uint32(count))
}

// Keep reports whether a unit belongs to this shard.
func (s ShardSpec) Keep(unit string) bool { return ShardOf(unit, s.Count) == s.Index }

// ShardInstances restricts instances to this shard: every source reads
// its slice of the units it declares (a source read whole is one unit,
// placed by the source's name), except those every says run whole in
// every shard (plan sources: the others filter by what plans declare).
// It returns the instances to run and, by source name, how each takes
// part.
func ShardInstances(instances []Instance, spec ShardSpec, every func(Instance) bool) ([]Instance, map[string]model.ShardSpec) {
	specs := make(map[string]model.ShardSpec, len(instances))
	run := make([]Instance, 0, len(instances))
	for _, in := range instances {
		ss := model.ShardSpec{Index: spec.Index, Count: spec.Count, Owner: spec.Index, Mode: model.ShardSplit}
		if every != nil && every(in) {
			ss.Mode = model.ShardEvery
		} else {
			name, shared := in.Name, sharedUnits(in.Collector)
			in.keep = func(units []string) []string {
				return slices.DeleteFunc(slices.Clone(units), func(u string) bool {
					return !spec.Keep(cmp.Or(u, name)) && !slices.Contains(shared, u)
				})
			}
		}
		specs[in.Name] = ss
		run = append(run, in)
	}
	return run, specs
}

// SharedUnits is implemented by collectors with a unit every shard reads:
// a listing the other units come from (Airflow's DAG listing). Each shard
// lists them to know its own; when the listing fails in one shard, that
// shard must say so, or the units it would have read pass as answered.
type SharedUnits interface {
	SharedUnits() []string
}

func sharedUnits(c Collector) []string {
	if s, ok := c.(SharedUnits); ok {
		return s.SharedUnits()
	}
	return nil
}
