package collectors

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// unitsCollector declares units and reads each with read (nil: one
// dashboard at the unit).
type unitsCollector struct {
	units []string
	err   error
	read  func(unit string, s Sink) error
	env   Env
	seen  []string
}

func (u *unitsCollector) Init(env Env) error { u.env = env; return nil }

func (u *unitsCollector) Units(context.Context) ([]string, error) { return u.units, u.err }

func (u *unitsCollector) CollectUnit(_ context.Context, unit string, s Sink) error {
	u.seen = append(u.seen, unit)
	if u.read != nil {
		return u.read(unit, s)
	}
	s.AddRead(unit, "dashboards", 1, 0)
	return nil
}

func coverageOf(t *testing.T, c Collector) model.Coverage {
	t.Helper()
	est, err := Run(context.Background(), []Instance{{Name: "src", Type: "toy", Collector: c}}, 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return est.Coverage[0]
}

func errorAt(c model.Coverage, scope, text string) bool {
	return slices.ContainsFunc(c.Errors, func(e model.ScopeError) bool {
		return e.Scope == scope && strings.Contains(e.Error, text)
	})
}

// The framework runs the per-unit loop: each declared unit is read, a
// unit's error stays at that unit and the others answer.
func TestUnitsEachReadAndFailAlone(t *testing.T) {
	c := &unitsCollector{units: []string{"p1", "p2", "p3"}, read: func(unit string, s Sink) error {
		if unit == "p2" {
			return errors.New("403 Forbidden")
		}
		s.AddRead(model.JoinScope(unit, "topics"), "topics", 2, 0)
		return nil
	}}
	cov := coverageOf(t, c)
	if !slices.Equal(c.seen, []string{"p1", "p2", "p3"}) {
		t.Errorf("units read %v, want every declared unit", c.seen)
	}
	if cov.Status != model.CoverageDegraded || !errorAt(cov, "p2", "403") || len(cov.Errors) != 1 {
		t.Errorf("one unit failed: want degraded with the error at p2 alone, got %+v", cov)
	}
	if !cov.Answered("p1/topics") || cov.Answered("p2/topics") {
		t.Errorf("p1 answered and p2 did not: %+v", cov)
	}
}

// No unit answering fails the source, naming the units; a failed
// declaration fails it too; declaring nothing is not an answer.
func TestUnitsNoneAnsweredFails(t *testing.T) {
	c := &unitsCollector{units: []string{"a", "b"}, read: func(string, Sink) error { return errors.New("connection refused") }}
	if cov := coverageOf(t, c); cov.Status != model.CoverageFailed || !strings.Contains(cov.Error, "no unit answered (a, b)") {
		t.Errorf("every unit failed: want failed naming them, got %+v", cov)
	}
	c = &unitsCollector{err: errors.New("list projects: 500")}
	if cov := coverageOf(t, c); cov.Status != model.CoverageFailed || !strings.Contains(cov.Error, "list projects") {
		t.Errorf("the listing failed: want failed, got %+v", cov)
	}
	if cov := coverageOf(t, &unitsCollector{}); cov.Status != model.CoverageFailed {
		t.Errorf("no unit declared: want failed, got %+v", cov)
	}
}

// A collector is held to its declaration: a unit it declared and then
// did not read, or a read at a unit it did not declare, is an error in
// its coverage, never an "ok" that says nothing.
func TestUnitsHeldToTheDeclaration(t *testing.T) {
	lazy := &unitsCollector{units: []string{"flags/default", "flags/billing"}, read: func(unit string, s Sink) error {
		if unit == "flags/default" {
			s.AddRead(unit, "flags", 3, 0)
		}
		return nil // billing is never asked for
	}}
	if cov := coverageOf(t, lazy); cov.Full() || !errorAt(cov, "flags/billing", "returned without reading it") || cov.Answered("flags/billing") {
		t.Errorf("a declared unit never read: want an error at it, got %+v", cov)
	}
	stray := &unitsCollector{units: []string{"flags/default"}, read: func(unit string, s Sink) error {
		s.AddRead(unit, "flags", 3, 0)
		s.AddRead("flags/other", "flags", 1, 0)
		return nil
	}}
	if cov := coverageOf(t, stray); cov.Full() || !errorAt(cov, "", "flags/other, which it did not declare") {
		t.Errorf("a read outside the declared units: want an error of the source, got %+v", cov)
	}
	whole := &unitsCollector{units: []string{""}, read: func(_ string, s Sink) error {
		s.AddRead("dashboards/x", "dashboards", 1, 0)
		return nil
	}}
	if cov := coverageOf(t, whole); !cov.Full() {
		t.Errorf("a source read whole may read at any scope: %+v", cov)
	}
}

// Shards divide the declared units between them: every unit is read by
// exactly one shard, and a source read whole by one shard only.
func TestUnitsShardedByTheFramework(t *testing.T) {
	units := []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"}
	var read []string
	wholeReads := 0
	for i := range 3 {
		c := &unitsCollector{units: units}
		w := &unitsCollector{units: []string{""}}
		run, specs := ShardInstances([]Instance{{Name: "split", Collector: c}, {Name: "whole", Collector: w}}, ShardSpec{Index: i, Count: 3}, nil)
		if _, err := Run(context.Background(), run, 1, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if specs["split"].Mode != model.ShardSplit {
			t.Errorf("shard %d: a source with units is split, got %+v", i, specs["split"])
		}
		read = append(read, c.seen...)
		wholeReads += len(w.seen)
	}
	slices.Sort(read)
	if !slices.Equal(read, units) || wholeReads != 1 {
		t.Errorf("3 shards read %v and the whole source %d times; want each unit once, the whole source once", read, wholeReads)
	}
}

// Decode hands a collector its Env: its name, a selector and a clock.
func TestDecodeHandsTheEnv(t *testing.T) {
	Register("units-test", func() Collector { return &unitsCollector{} }, "")
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	in, err := Decode(map[string]any{"type": "units-test", "name": "mine"}, Env{BaseDir: "/etc/bfaudit", Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	env := in.Collector.(*unitsCollector).env
	if env.Source != "mine" || env.Selector == nil || !env.Now().Equal(at) || env.Path("plans") != "/etc/bfaudit/plans" {
		t.Errorf("env = %+v", env)
	}
}

// concurrentCollector reads its units at most limit at a time.
type concurrentCollector struct {
	unitsCollector
	limit        int
	mu           sync.Mutex
	now, highest int
}

func (c *concurrentCollector) UnitConcurrency() int { return c.limit }

func (c *concurrentCollector) CollectUnit(_ context.Context, unit string, s Sink) error {
	c.mu.Lock()
	c.now++
	c.highest = max(c.highest, c.now)
	c.mu.Unlock()
	time.Sleep(5 * time.Millisecond)
	c.mu.Lock()
	c.now--
	c.mu.Unlock()
	if unit == "d3" {
		return errors.New("HTTP 500")
	}
	s.AddRead(unit, "dags", 1, 0)
	return nil
}

// A collector that declares its units may be read at once is read at
// most that many at a time, with the same per-unit errors.
func TestUnitsReadConcurrentlyWithinTheLimit(t *testing.T) {
	c := &concurrentCollector{unitsCollector: unitsCollector{units: []string{"d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"}}, limit: 3}
	cov := coverageOf(t, c)
	if c.highest < 2 || c.highest > 3 {
		t.Errorf("at most %d at once, saw %d", c.limit, c.highest)
	}
	if cov.Status != model.CoverageDegraded || len(cov.Errors) != 1 || !errorAt(cov, "d3", "HTTP 500") {
		t.Errorf("one unit failed: %+v", cov)
	}
}

// sharedCollector has every shard read its listing unit.
type sharedCollector struct{ unitsCollector }

func (s *sharedCollector) SharedUnits() []string { return []string{"dags"} }

// A unit the collector shares is read by every shard (a listing each
// shard needs, whose failure each must report); the others by one.
func TestSharedUnitReadByEveryShard(t *testing.T) {
	units := []string{"dags", "dags/a", "dags/b", "dags/c", "dags/d"}
	listings, dags := 0, 0
	for i := range 3 {
		c := &sharedCollector{unitsCollector{units: units}}
		run, _ := ShardInstances([]Instance{{Name: "airflow", Collector: c}}, ShardSpec{Index: i, Count: 3}, nil)
		if _, err := Run(context.Background(), run, 1, time.Time{}); err != nil {
			t.Fatal(err)
		}
		for _, u := range c.seen {
			if u == "dags" {
				listings++
			} else {
				dags++
			}
		}
	}
	if listings != 3 || dags != 4 {
		t.Errorf("the listing read %d times, the DAGs %d; want 3 (every shard) and 4 (each once)", listings, dags)
	}
}

// A unit declared twice (a file two settings name) is read once.
func TestUnitDeclaredTwiceReadOnce(t *testing.T) {
	c := &unitsCollector{units: []string{"a.yaml", "b.yaml", "a.yaml"}}
	if cov := coverageOf(t, c); !cov.Full() || !slices.Equal(c.seen, []string{"a.yaml", "b.yaml"}) {
		t.Errorf("read %v (coverage %+v), want a.yaml then b.yaml, each once", c.seen, cov)
	}
}
