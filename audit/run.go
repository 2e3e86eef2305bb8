package audit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/rules"
)

// Plan is one audit: what to read, how to judge it, and what happens to
// the report before it is written. Run owns the order; the CLI, the
// tests and the benchmarks fill a Plan instead of restating it.
type Plan struct {
	// Estate is judged as given (audit --from); when nil, Instances are
	// collected, at most Concurrency at a time.
	Estate      *model.Estate
	Instances   []collectors.Instance
	Concurrency int
	Selector    *correlate.Selector
	Engine      *rules.Engine
	Now         time.Time
	Due         due.Policy
	Teams       model.Teams
	// Deadline is the run's deadline, named when it stops collection.
	Deadline time.Duration
	// Memory is the history store, nil without one. When it also dates
	// findings (Due), due dates stay fixed from their first sighting.
	Memory Memory
	// Problems happened before the run (a history store that would not
	// open): the report lists them first and the run is incomplete.
	Problems []error
	// Deliver hands the judged, dated and redacted report to the sinks
	// (GitHub, Slack), which may waive findings; Measure then sees the
	// refreshed report (metrics). Each reports what went wrong through
	// problem, which puts it in the report at once, so what is written
	// after it (a metrics file) already says the run was incomplete.
	Deliver func(finish context.Context, a *Audit, problem func(error))
	Measure func(finish context.Context, a *Audit, problem func(error))
}

// dater is a Memory that keeps each finding's due date from its first
// sighting.
type dater interface {
	Due(ctx context.Context, r *model.Report) error
}

// Run is the pipeline: collect → remember → evaluate → due dates and
// teams → redact → deliver → refresh → measure → redact. ctx bounds the
// collection (the run's deadline, a signal); finish bounds what must
// still happen once it ended (history, the sinks' last words). Run always
// returns a report: what was collected when ctx ended, the reason among
// its problems. The errors returned are the run's problems; any makes
// the run incomplete.
func Run(ctx, finish context.Context, p Plan) (*Audit, []error) {
	var errs []error
	// The plan lets go of the estate: the evaluation ties a copy of its
	// artifacts, and the plan, alive until Run returns, would otherwise
	// hold the untied list beside it (31 MB at 100,000 artifacts) through
	// the whole evaluation.
	est := p.Estate
	p.Estate = nil
	if est == nil {
		var err error
		if est, err = Collect(ctx, p.Instances, p.Selector, p.Concurrency, p.Now); err != nil {
			errs = append(errs, Stopped(ctx, p.Deadline))
		}
	}
	errs = append(errs, p.Problems...)
	defer paceGC(len(est.Artifacts))()
	a, err := EvaluateWith(finish, est, p.Selector, p.Engine, p.Now, p.Memory)
	if err != nil {
		errs = append(errs, fmt.Errorf("history: %w", err))
	}
	r := a.Report
	for _, e := range errs {
		r.Problems = append(r.Problems, e.Error())
	}
	problem := func(err error) {
		r.Problems = append(r.Problems, err.Error())
		errs = append(errs, err)
		a.Refresh() // the summary now says the run is incomplete
	}
	// Due dates before the sinks, so the GitHub issues show them; a
	// memory keeps them fixed from the first sighting, without one they
	// are counted from now (docs/reports/due.md).
	due.Stamp(r, p.Due)
	team := p.Teams.Namer()
	for i := range r.Findings {
		r.Findings[i].Team = team(r.Findings[i].Owner)
	}
	if d, ok := p.Memory.(dater); ok {
		if err := d.Due(finish, r); err != nil {
			problem(fmt.Errorf("history: %w", err))
		}
	}
	Redact(r)
	if p.Deliver != nil {
		p.Deliver(finish, a, problem)
	}
	due.ClearWaived(r) // a sink may have waived a finding
	a.Refresh()
	if p.Measure != nil {
		p.Measure(finish, a, problem)
	}
	Redact(r)
	return a, errs
}

// Stopped says, for the report and the log, why collection stopped
// early: ctx is the run's own context, ended by its deadline or a signal.
func Stopped(ctx context.Context, deadline time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the run's deadline (%s) passed before every source finished: reports hold what was collected", deadline)
	}
	return errors.New("the run was interrupted (signal) before every source finished: reports hold what was collected")
}
