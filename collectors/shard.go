package collectors

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Sharder is implemented by collectors whose units are named in their
// config (projects, namespaces, vhosts), so `collect --shard I/N` can give
// each shard a slice of them. Shard keeps only the units keep accepts and
// returns how many it kept; ok is false, and nothing changes, when the
// units can only be known by listing them (all namespaces, every vhost):
// the source is then collected whole by one shard.
type Sharder interface {
	Shard(keep func(unit string) bool) (kept int, ok bool)
}

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

// ShardInstances restricts instances to this shard. A Sharder keeps its
// slice of units; any other source, unless every says it runs in every
// shard, is collected whole by shard ShardOf(its name). It returns the
// instances to run and, by source name, how each takes part; a source
// assigned to another shard is not returned to run.
func ShardInstances(instances []Instance, spec ShardSpec, every func(Instance) bool) ([]Instance, map[string]model.ShardSpec) {
	specs := make(map[string]model.ShardSpec, len(instances))
	var run []Instance
	for _, in := range instances {
		owner := ShardOf(in.Name, spec.Count)
		ss := model.ShardSpec{Index: spec.Index, Count: spec.Count, Owner: owner}
		if every != nil && every(in) {
			// Read whole in every shard: not split, or a plan source
			// with units would give each shard a slice of the plans.
			ss.Mode, ss.Owner = model.ShardEvery, spec.Index
			specs[in.Name] = ss
			run = append(run, in)
			continue
		}
		in, isSplit := split(in, spec)
		switch {
		case isSplit:
			ss.Mode, ss.Owner = model.ShardSplit, spec.Index
		case owner == spec.Index:
			ss.Mode = model.ShardWhole
		default:
			ss.Mode = model.ShardElsewhere
			specs[in.Name] = ss
			continue
		}
		specs[in.Name] = ss
		run = append(run, in)
	}
	return run, specs
}

// split asks a Sharder to keep its slice. One left with no unit in this
// shard collects nothing: its Collect would fail with nothing to read.
func split(in Instance, spec ShardSpec) (Instance, bool) {
	if _, ok := in.Collector.(UnitCollector); ok {
		// Every shard declares the same units and reads its slice; a
		// source read whole is one unit, placed by the source's name.
		name := in.Name
		in.keep = func(units []string) []string {
			return KeepUnits(units, func(u string) bool { return spec.Keep(cmp.Or(u, name)) })
		}
		return in, true
	}
	s, ok := in.Collector.(Sharder)
	if !ok {
		return in, false
	}
	kept, ok := s.Shard(spec.Keep)
	if ok && kept == 0 {
		in.Collector = nothing{}
	}
	return in, ok
}

// nothing is a source with no unit in this shard: it answers, empty.
type nothing struct{}

func (nothing) Collect(context.Context, Sink) error { return nil }

// KeepUnits returns the units keep accepts, for Sharder implementations.
func KeepUnits(units []string, keep func(string) bool) []string {
	var out []string
	for _, u := range units {
		if keep(u) {
			out = append(out, u)
		}
	}
	return out
}
