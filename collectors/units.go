package collectors

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
)

// Env is what the audit hands a source before it reads anything: the
// name it reports under, the selector that says what is backfill
// machinery, the folder relative paths are read from, the audit's clock
// and where its settings are written in the config file.
type Env struct {
	// Source is the source's name (`name:`, else its type): the host part
	// of its URIs and the name in coverage.
	Source string
	// Selector holds the ids and assets plans declare; never nil after
	// Decode. Its assets are filled after plan sources run, before Units.
	Selector *correlate.Selector
	// BaseDir is the config file's folder ("" for the working folder).
	BaseDir string
	// Now is the audit's clock (`--now`); never nil after Decode.
	Now func() time.Time
	// Where places a key of this source's entry in the config file
	// ("bfaudit.yaml:14: sources[0].plans[1]"); nil-safe through Place.
	Where func(key string) string
}

// Path resolves a path of the source's settings against BaseDir.
func (e Env) Path(p string) string { return Resolve(e.BaseDir, p) }

// Name is what a source names itself by in its URIs and errors: its
// configured name, else the host of its address (a URL), else fallback.
func (e Env) Name(address, fallback string) string {
	if e.Source != "" {
		return e.Source
	}
	if u, err := url.Parse(address); err == nil && u.Host != "" {
		return u.Host
	}
	return fallback
}

// Place names where key is written: its place in the config file when
// known, else the key itself.
func (e Env) Place(key string) string {
	if e.Where != nil {
		return e.Where(key)
	}
	return key
}

// filled is e with its defaults: a selector and a clock.
func (e Env) filled() Env {
	if e.Selector == nil {
		e.Selector = correlate.MustSelector()
	}
	if e.Now == nil {
		e.Now = time.Now
	}
	return e
}

// Collector reads one system unit by unit; the framework does the
// rest. Init validates the settings and builds clients without calling
// the system (a server that is down fails the run's coverage, not the
// config). Units declares what this run will read: the units named in
// the settings, or listed from the system; an error there fails the
// source. CollectUnit reads one declared unit and says what it read
// (Sink.AddRead) at that unit or below it; an error fails that unit
// only. The framework runs the loop, records each unit's error, fails
// the source when no unit answered, divides units between shards, and
// holds a collector to its declaration: a unit read that was not
// declared, or declared and not read, is an error in the coverage.
//
// A unit is a scope path (model.JoinScope): "" is the whole source, read
// in one go. A unit declared twice is read once.
type Collector interface {
	Init(env Env) error
	Units(ctx context.Context) ([]string, error)
	CollectUnit(ctx context.Context, unit string, sink Sink) error
}

// ConcurrentUnits is implemented by collectors whose units may be read
// at once (one call per Airflow DAG): the framework reads at most
// UnitConcurrency of them at a time; otherwise one after another.
type ConcurrentUnits interface {
	UnitConcurrency() int
}

// Collect reads every unit of c into sink, the way Run reads a source:
// a unit's error is recorded at that unit and the rest go on, and the
// error returned fails the source (the declaration failed, no unit
// answered, or ctx ended). Tests read a collector with it.
func Collect(ctx context.Context, c Collector, sink Sink) error {
	return collectUnits(ctx, c, sink, nil)
}

// collectUnits is Collect with keep, which limits the units read to a
// shard's slice: a source with nothing to read in it answers, empty.
func collectUnits(ctx context.Context, c Collector, sink Sink, keep func([]string) []string) error {
	units, err := c.Units(ctx)
	if err != nil {
		return err
	}
	if len(units) == 0 {
		return errors.New("declared no unit to read")
	}
	units = once(units)
	if keep != nil {
		if units = keep(units); len(units) == 0 {
			return nil
		}
	}
	w := newWatchedSink(sink, units)
	limit := 1
	if cu, ok := c.(ConcurrentUnits); ok {
		limit = max(cu.UnitConcurrency(), 1)
	}
	// Each unit's error at its index, so the source's error lists them in
	// the declared order however the reads interleave.
	failed := make([]error, len(units))
	var wg sync.WaitGroup
	sem := make(chan struct{}, limit)
	for i, u := range units {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := collectUnit(ctx, c, u, w)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				w.AddError(u, err)
				failed[i] = err
			} else if !w.touched(u) {
				w.AddError(u, fmt.Errorf("the collector declared unit %s and returned without reading it", orWhole(u)))
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, err := range failed {
		if err == nil {
			return nil // a unit answered
		}
	}
	if len(units) == 1 {
		return failed[0]
	}
	return fmt.Errorf("no unit answered (%s): %w", strings.Join(units, ", "), errors.Join(failed...))
}

// once is units without repeats, in their order: a unit declared twice
// (a file two settings name) is read once.
func once(units []string) []string {
	seen := make(map[string]bool, len(units))
	return slices.DeleteFunc(slices.Clone(units), func(u string) bool {
		dup := seen[u]
		seen[u] = true
		return dup
	})
}

// collectUnit reads one unit; a panic is that unit's error, not the end
// of the audit (each unit runs in a goroutine of its own).
func collectUnit(ctx context.Context, c Collector, unit string, sink Sink) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("collector panicked: %v", r)
		}
	}()
	return c.CollectUnit(ctx, unit, sink)
}

func orWhole(unit string) string {
	if unit == "" {
		return "(the whole source)"
	}
	return unit
}

// watchedSink holds a collector to its declared units: a read or an error
// at a scope under no declared unit is recorded as an error of the whole
// source (a bug in the collector must not pass as an answer), and it
// remembers which units said anything. Each check walks the scope's
// parents, so a source of many units (DAGs, files) costs no more per read
// than one.
type watchedSink struct {
	Sink
	units map[string]bool // declared, without a trailing "/"; "" is the whole source

	mu    sync.Mutex
	said  map[string]bool // declared units something was read or failed under
	whole bool            // an error of the whole source was recorded
}

func newWatchedSink(sink Sink, units []string) *watchedSink {
	w := &watchedSink{Sink: sink, units: make(map[string]bool, len(units)), said: map[string]bool{}}
	for _, u := range units {
		w.units[strings.TrimSuffix(u, "/")] = true
	}
	return w
}

// over lists the declared units scope lies within (see model.ScopeWithin):
// scope itself and each parent, up to the whole source.
func (w *watchedSink) over(scope string) []string {
	var out []string
	for s := strings.TrimSuffix(scope, "/"); ; {
		if w.units[s] {
			out = append(out, s)
		}
		if s == "" {
			return out
		}
		i := strings.LastIndexByte(s, '/')
		if i < 0 {
			i = 0
		}
		s = s[:i]
	}
}

func (w *watchedSink) saw(scope string) bool {
	units := w.over(scope)
	if len(units) == 0 {
		w.Sink.AddError("", fmt.Errorf("the collector read %s, which it did not declare as a unit", scope))
		return false
	}
	w.mu.Lock()
	for _, u := range units {
		w.said[u] = true
	}
	w.mu.Unlock()
	return true
}

// touched reports whether anything was read or failed at unit or below.
func (w *watchedSink) touched(unit string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.whole || w.said[strings.TrimSuffix(unit, "/")]
}

func (w *watchedSink) AddRead(scope, what string, n, partial int) {
	if w.saw(scope) {
		w.Sink.AddRead(scope, what, n, partial)
	}
}

func (w *watchedSink) AddError(scope string, err error) {
	if err == nil {
		return
	}
	if scope == "" {
		// The whole source is tainted: every unit has said something.
		w.mu.Lock()
		w.whole = true
		w.mu.Unlock()
		w.Sink.AddError(scope, err)
		return
	}
	if w.saw(scope) {
		w.Sink.AddError(scope, err)
	}
}
