package collectors

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

// Instance is one configured source: a collector and the name it reports under.
type Instance struct {
	Name      string
	Type      string
	Collector Collector
	// keep limits the units read to one shard's slice (ShardInstances).
	keep func(units []string) []string
}

// StopGrace is how long Run waits, once ctx has ended, for collectors to
// return before it abandons them: a collector that ignores its context
// must not keep the audit from finishing.
var StopGrace = 5 * time.Second

// Run collects from every instance, at most limit at a time (0: all at
// once), and returns the estate. A collector's failure is recorded in its
// coverage. When ctx ends (the run's deadline, a signal) Run still returns
// what was collected, with every source that had not finished marked
// failed, together with ctx's error: the audit reports what it has, marked
// incomplete, instead of nothing. An Observer in ctx (WithObserver) hears
// each source start, read and finish.
func Run(ctx context.Context, instances []Instance, limit int, now time.Time) (*model.Estate, error) {
	if limit <= 0 {
		limit = len(instances)
	}
	obs := observerOf(ctx)
	sinks := make([]*sourceSink, len(instances))
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i, inst := range instances {
		sinks[i] = &sourceSink{source: inst.Name, system: inst.Type, obs: obs}
		if l, ok := inst.Collector.(LineageReader); ok {
			sinks[i].lineage = l.ReadsLineage()
		}
		wg.Add(1)
		go func(s *sourceSink, inst Instance) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				s.start()
				s.fail(stopped(ctx))
				s.finish()
				return
			}
			defer func() { <-sem }()
			defer func() {
				if r := recover(); r != nil {
					s.fail(fmt.Errorf("collector panicked: %v", r))
					s.finish()
				}
			}()
			s.start()
			err := collectUnits(ctx, inst.Collector, s, inst.keep)
			if n, ok := inst.Collector.(Noter); ok {
				s.note(n.Notes())
			}
			switch {
			case ctx.Err() != nil:
				s.fail(stopped(ctx))
			case err != nil:
				s.fail(err)
			}
			s.finish()
		}(sinks[i], inst)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		select {
		case <-done:
		case <-time.After(StopGrace):
		}
	}
	est := &model.Estate{Version: model.EstateVersion, CollectedAt: now}
	for _, s := range sinks {
		if s.freeze(ctx) {
			s.start()
			s.obs.Finished(s.coverage(), time.Since(s.started))
		}
		s.mergeInto(est)
	}
	Sort(est)
	return est, ctx.Err()
}

// stopped says why collection stopped early, in the words a user reads in
// the report.
func stopped(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errors.New("stopped: the run's deadline was reached before this source finished (see --deadline)")
	}
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return fmt.Errorf("stopped: %w", c)
	}
	return errors.New("stopped: the run was interrupted before this source finished")
}

// Sort puts an estate in a stable order so saved estates and reports diff
// cleanly between runs.
func Sort(est *model.Estate) {
	// A saved estate comes sorted: checking costs a pass, while a stable
	// sort of 100,000 artifacts moves them about even when in order.
	stable(est.Backfills, func(a, b *model.Backfill) bool {
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Source.String() < b.Source.String()
	})
	stable(est.Artifacts, func(a, b *model.Artifact) bool { return a.URI < b.URI })
	stable(est.Records, func(a, b *model.DecisionRecord) bool {
		if a.BackfillID != b.BackfillID {
			return a.BackfillID < b.BackfillID
		}
		return a.Source.String() < b.Source.String()
	})
	stable(est.Coverage, func(a, b *model.Coverage) bool { return a.Source < b.Source })
	stable(est.Edges, func(a, b *model.Edge) bool {
		return cmp.Or(cmp.Compare(a.Parent, b.Parent), cmp.Compare(a.Child, b.Child),
			cmp.Compare(a.Source, b.Source), cmp.Compare(a.Via, b.Via)) < 0
	})
	stable(est.Builds, func(a, b *model.Build) bool {
		return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Source, b.Source), cmp.Compare(a.Node, b.Node)) < 0
	})
}

// stable sorts s stably by less unless it is sorted already.
func stable[T any](s []T, less func(a, b *T) bool) {
	byIndex := func(i, j int) bool { return less(&s[i], &s[j]) }
	if !sort.SliceIsSorted(s, byIndex) {
		sort.SliceStable(s, byIndex)
	}
}

// sourceSink gathers one source's output and its coverage.
type sourceSink struct {
	source, system string
	lineage        bool // the source reads lineage (LineageReader)
	obs            Observer
	started        time.Time // set by start, before the collector runs

	mu        sync.Mutex
	backfills []model.Backfill
	artifacts []model.Artifact
	records   []model.DecisionRecord
	edges     []model.Edge
	builds    []model.Build
	errs      []model.ScopeError
	notes     []string
	reads     []model.UnitRead
	failed    error
	finished  bool
	frozen    bool // abandoned after the run ended: later adds are dropped
	units     map[string]bool
	objects   int
}

// start tells the observer the source began, once.
func (s *sourceSink) start() {
	s.mu.Lock()
	first := s.started.IsZero()
	if first {
		s.started = time.Now()
	}
	s.mu.Unlock()
	if first {
		s.obs.Started(s.source, s.system)
	}
}

// note keeps what the collector noted about its run.
func (s *sourceSink) note(notes []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.frozen {
		s.notes = append(s.notes, notes...)
	}
}

// finish marks the collector as returned, once, and tells the observer.
func (s *sourceSink) finish() {
	s.mu.Lock()
	already := s.finished
	s.finished = true
	s.mu.Unlock()
	if !already {
		s.obs.Finished(s.coverage(), time.Since(s.started))
	}
}

// freeze stops the sink taking more, and marks a source that had not
// finished when the run ended as failed: part of its answer is missing.
// It reports whether the source was abandoned so.
func (s *sourceSink) freeze(ctx context.Context) (abandoned bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frozen = true
	if !s.finished && s.failed == nil {
		s.failed = stopped(ctx)
	}
	return !s.finished
}

// add appends v to one of the sink's lists, unless the sink is frozen.
func add[T any](s *sourceSink, list *[]T, v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.frozen {
		*list = append(*list, v)
	}
}

func (s *sourceSink) AddBackfill(b model.Backfill) {
	if b.Source.Source == "" {
		b.Source.Source = s.source
	}
	add(s, &s.backfills, b)
}

// stamp names this source as where an artifact, edge or build came from,
// and its system unless the collector named another (cloudasset and
// inventory report other systems' objects).
func (s *sourceSink) stamp(source, system *string) {
	*source = s.source
	if *system == "" {
		*system = s.system
	}
}

func (s *sourceSink) AddArtifact(a model.Artifact) {
	s.stamp(&a.Source, &a.System)
	add(s, &s.artifacts, a)
}

func (s *sourceSink) AddRecord(r model.DecisionRecord) {
	if r.Source.Source == "" {
		r.Source.Source = s.source
	}
	add(s, &s.records, r)
}

func (s *sourceSink) AddEdge(e model.Edge) {
	s.stamp(&e.Source, &e.System)
	add(s, &s.edges, e)
}

func (s *sourceSink) AddBuild(b model.Build) {
	s.stamp(&b.Source, &b.System)
	add(s, &s.builds, b)
}

func (s *sourceSink) AddError(scope string, err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	if !s.frozen {
		s.errs = append(s.errs, model.ScopeError{Scope: scope, Error: redact.String(unrepeated(err.Error(), s.system, scope))})
	}
	s.mu.Unlock()
}

// unrepeated drops from an error the system and the unit it is recorded
// at, when the collector wrapped them in front of it ("inventory:
// inv.yaml: inv.yaml: ..."): every report prints the error under its unit,
// so each names its path once. A position ("plans/x.yaml:4: key: ...") is
// kept, as it says more than the unit.
func unrepeated(msg, system, scope string) string {
	for {
		m := strings.TrimPrefix(msg, system+": ")
		if scope != "" {
			m = strings.TrimPrefix(m, scope+": ")
		}
		if m == msg || m == "" {
			return msg
		}
		msg = m
	}
}

func (s *sourceSink) AddRead(scope, what string, n, partial int) {
	s.mu.Lock()
	if s.frozen {
		s.mu.Unlock()
		return
	}
	s.reads = addRead(s.reads, scope, what, n, partial)
	if s.units == nil {
		s.units = map[string]bool{}
	}
	s.units[scope] = true
	s.objects += n
	units, objects := len(s.units), s.objects
	s.mu.Unlock()
	s.obs.Read(s.source, units, objects)
}

// addRead adds n objects of one kind read at scope to reads.
func addRead(reads []model.UnitRead, scope, what string, n, partial int) []model.UnitRead {
	for i := range reads {
		if reads[i].Scope == scope && reads[i].What == what {
			reads[i].Read += n
			reads[i].Partial += partial
			return reads
		}
	}
	return append(reads, model.UnitRead{Scope: scope, What: what, Read: n, Partial: partial})
}

func (s *sourceSink) fail(err error) {
	s.mu.Lock()
	s.failed = err
	s.mu.Unlock()
}

func (s *sourceSink) mergeInto(est *model.Estate) {
	c := s.coverage()
	s.mu.Lock()
	defer s.mu.Unlock()
	est.Backfills = append(est.Backfills, s.backfills...)
	est.Artifacts = append(est.Artifacts, s.artifacts...)
	est.Records = append(est.Records, s.records...)
	est.Edges = append(est.Edges, s.edges...)
	est.Builds = append(est.Builds, s.builds...)
	est.Coverage = append(est.Coverage, c)
}

// coverage is the source's coverage as it stands.
func (s *sourceSink) coverage() model.Coverage {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Collectors report concurrently; sorted errors keep reports stable.
	sort.Slice(s.errs, func(i, j int) bool {
		if s.errs[i].Scope != s.errs[j].Scope {
			return s.errs[i].Scope < s.errs[j].Scope
		}
		return s.errs[i].Error < s.errs[j].Error
	})
	c := model.Coverage{
		Source: s.source, System: s.system, Status: model.CoverageOK, Errors: slices.Clone(s.errs),
		Artifacts: len(s.artifacts), Backfills: len(s.backfills), Records: len(s.records),
		Lineage: s.lineage,
	}
	for _, n := range s.notes {
		c.Notes = append(c.Notes, redact.String(n))
	}
	sort.Slice(s.reads, func(i, j int) bool {
		if s.reads[i].Scope != s.reads[j].Scope {
			return s.reads[i].Scope < s.reads[j].Scope
		}
		return s.reads[i].What < s.reads[j].What
	})
	c.Reads = slices.Clone(s.reads)
	switch {
	case s.failed != nil:
		c.Status = model.CoverageFailed
		c.Error = redact.String(s.failed.Error())
	case len(s.errs) > 0:
		c.Status = model.CoverageDegraded
	}
	return c
}
