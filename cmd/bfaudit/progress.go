package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
)

// progress shows a collection on stderr as it goes (a collectors.Observer):
// on a terminal, one live line per running source (units, objects read,
// time), redrawn in place, and a line of its own for each source as it
// finishes; elsewhere (CI, cron) only the finished lines, plain; with
// --quiet nothing. A finished line carries the source's notes and, when
// it did not answer fully, why, so the run's final error need not repeat
// it (told).
type progress struct {
	w     io.Writer
	live  bool
	off   bool
	width int
	total int
	start time.Time

	mu      sync.Mutex
	running []*sourceRow
	done    int
	pending []string                  // finished lines not yet written (live)
	told    map[string]model.Coverage // what a finished line said of a source that did not answer fully
	drawn   int                       // live lines on screen
	stop    chan struct{}
	stopped chan struct{}
}

type sourceRow struct {
	source, system string
	units, objects int
	started        time.Time
}

// redrawEvery is how often the live lines are redrawn.
const redrawEvery = 150 * time.Millisecond

// startProgress starts showing a collection from total sources.
func (g *globals) startProgress(total int) *progress {
	// --verbose logs every HTTP call to stderr while sources run: a redraw
	// would wipe those lines, so they get the plain lines instead.
	p := &progress{w: g.stderr, off: g.quiet, live: isTerminal(g.stderr) && !g.verbose, total: total, start: time.Now(),
		told: map[string]model.Coverage{}}
	if p.live && !p.off {
		p.width = terminalWidth(g.stderr)
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go func() {
			defer close(p.stopped)
			t := time.NewTicker(redrawEvery)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.mu.Lock()
					p.redraw()
					p.mu.Unlock()
				}
			}
		}()
	}
	return p
}

// close stops the live lines and leaves the finished ones on screen.
func (p *progress) close() {
	if p == nil || p.stop == nil {
		return
	}
	close(p.stop)
	<-p.stopped
	p.stop = nil
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = nil
	p.redraw()
}

func (p *progress) Started(source, system string) {
	if p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = append(p.running, &sourceRow{source: source, system: system, started: time.Now()})
}

func (p *progress) Read(source string, units, objects int) {
	if p.off || !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.running {
		if r.source == source {
			r.units, r.objects = units, objects
		}
	}
}

func (p *progress) Finished(c model.Coverage, elapsed time.Duration) {
	if p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, r := range p.running {
		if r.source == c.Source {
			p.running = append(p.running[:i], p.running[i+1:]...)
			break
		}
	}
	p.done++
	if !c.Full() {
		p.told[c.Source] = c
	}
	line := finishedLine(c, elapsed)
	if !p.live {
		fmt.Fprintln(p.w, line)
		return
	}
	p.pending = append(p.pending, line)
}

// told reports whether a finished line already said why c did not answer
// fully, as c says it now (the validation queries run after a source
// finished may add to its errors).
func (p *progress) toldOf(c model.Coverage) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.told[c.Source]
	return ok && t.State() == c.State() && t.Error == c.Error && len(t.Errors) == len(c.Errors)
}

// redraw replaces the live lines: the sources finished since the last
// redraw get their lines for good, then one line per running source and
// one for the whole. Lines are cut to the terminal's width, or a wrapped
// line would spoil the next redraw. Called with p.mu held.
func (p *progress) redraw() {
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	b.WriteString("\r\x1b[J")
	// A finished line stays, so it is wrapped to the width (continuation
	// lines indented), not cut: it may hold why a source failed.
	for _, l := range p.pending {
		for i, part := range reports.Wrap(strings.TrimSpace(l), p.width-6) {
			if i == 0 {
				b.WriteString("  ")
			} else {
				b.WriteString("      ")
			}
			b.WriteString(part + "\n")
		}
	}
	p.pending = nil
	p.drawn = 0
	if len(p.running) > 0 {
		now := time.Now()
		for _, r := range p.running {
			b.WriteString(p.cut(fmt.Sprintf("  %s (%s): %s, %s read, %s", r.source, r.system,
				plural(r.units, "unit"), plural(r.objects, "object"), seconds(now.Sub(r.started)))) + "\n")
			p.drawn++
		}
		b.WriteString(p.cut(fmt.Sprintf("collecting: %d of %d sources done, %s", p.done, max(p.total, p.done+len(p.running)),
			seconds(now.Sub(p.start)))) + "\n")
		p.drawn++
	}
	fmt.Fprint(p.w, b.String())
}

// cut shortens a live line to the terminal's width (less one cell: a
// line that fills the last column wraps on some terminals).
func (p *progress) cut(s string) string { return reports.Cut(s, p.width-1) }

// finishedLine is the line a source gets when it finishes: its state,
// what it read, how long it took, why it did not answer fully and its
// notes.
func finishedLine(c model.Coverage, elapsed time.Duration) string {
	units := map[string]bool{}
	for _, r := range c.Reads {
		units[r.Scope] = true
	}
	read := reports.ReadCell(c)
	if read == "" {
		read = "nothing"
	}
	s := fmt.Sprintf("  %s (%s): %s in %s, %s, read %s", c.Source, c.System, c.State(), seconds(elapsed),
		plural(len(units), "unit"), read)
	switch c.State() {
	case model.CoverageFailed:
		s += ": " + redact.OneLine(c.Error)
	case model.CoverageDegraded:
		for _, e := range c.Errors {
			s += fmt.Sprintf("; %s did not answer: %s", orWhole(e.Scope), redact.OneLine(e.Error))
		}
	}
	return s + notes(c)
}

// seconds is a duration as people read it: 0.3s, 12.4s, 3m05s.
func seconds(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
