package airflow

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/internal/httplog"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// Notes says what the last run found worth saying that is no error:
// a collection projected past its budget, a listing that changed while
// it was read. The audit logs them and reports them in the coverage.
func (c *Airflow) Notes() []string {
	c.notesMu.Lock()
	defer c.notesMu.Unlock()
	return append([]string(nil), c.notes...)
}

func (c *Airflow) addNote(n string) {
	c.notesMu.Lock()
	defer c.notesMu.Unlock()
	c.notes = append(c.notes, n)
}

// projection foresees the calls a collection needs, from the first pages'
// total_entries and then from what the listings found, and warns once
// when they cannot fit the budget at the latency measured so far: a
// collection that will run out is said to before it does, with the
// settings that size it.
type projection struct {
	c     *Airflow
	ctx   context.Context
	a     *httpAPI
	clock remote.Stopwatch

	mu     sync.Mutex
	pages  map[string]int // listing pages, by listing
	warned bool
}

func newProjection(ctx context.Context, c *Airflow, a *httpAPI) *projection {
	p := &projection{c: c, ctx: ctx, a: a, clock: remote.StartStopwatch(), pages: map[string]int{}}
	a.listed = p.listed
	return p
}

// listed hears a listing's projected pages from its first page: the
// listings alone may already be past the budget.
func (p *projection) listed(listing string, pages int) {
	p.mu.Lock()
	p.pages[listing] = pages
	total := 0
	for _, n := range p.pages {
		total += n
	}
	p.mu.Unlock()
	p.check(total, 0)
}

// perDAG hears the per-DAG calls the listings leave to make.
func (p *projection) perDAG(calls int) {
	p.check(0, calls)
}

// check warns when the calls still to make, concurrency at a time at the
// mean latency so far, end past the budget.
func (p *projection) check(pages, perDAG int) {
	lat := p.a.latency()
	if lat <= 0 {
		return
	}
	calls := pages + perDAG
	waves := (calls + p.c.Concurrency - 1) / p.c.Concurrency
	need := p.clock.Elapsed() + time.Duration(waves)*lat
	if need <= p.c.Budget {
		return
	}
	p.mu.Lock()
	if p.warned {
		p.mu.Unlock()
		return
	}
	p.warned = true
	p.mu.Unlock()
	what := fmt.Sprintf("%d listing pages", pages)
	if perDAG > 0 {
		what = fmt.Sprintf("%d per-DAG calls", perDAG)
	}
	msg := fmt.Sprintf("airflow %s: about %s needed, past the budget of %s: %s still to read at %s a call, %d at a time; what is not read in time is an error at its DAG (raise budget or concurrency: docs/collectors/airflow.md, Sizing)",
		p.c.where(), need.Round(time.Second), p.c.Budget, what, lat.Round(time.Millisecond), p.c.Concurrency)
	p.c.addNote(msg)
	if l := httplog.FromContext(p.ctx); l != nil {
		l.LogAttrs(p.ctx, slog.LevelWarn, "airflow budget too small", slog.String("source", p.c.authority()),
			slog.Int("calls", calls), slog.Duration("latency", lat), slog.Int("concurrency", p.c.Concurrency),
			slog.Duration("needed", need.Round(time.Second)), slog.Duration("budget", p.c.Budget))
	}
}

// dagCalls is how many calls enrichOne makes for a DAG, at the least.
func (c *Airflow) dagCalls(info *dagInfo, v2 bool) int {
	n := 0
	if info.selected {
		n++ // active runs
	}
	if c.needDetails(info) {
		n++
	}
	if info.selected || info.hasRuns {
		n++ // tasks
	}
	if v2 && (info.selected || info.bfRuns) {
		n++ // backfill objects
	}
	return n
}
