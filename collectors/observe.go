package collectors

import (
	"context"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Observer hears how a collection goes, source by source, so a terminal
// can draw it (cmd/bfaudit/progress.go); collectors stay free of terminal
// code. Run calls it from the sources' goroutines, so it must be safe for
// concurrent use, and quick: a source waits while it runs.
type Observer interface {
	// Started: the source began collecting.
	Started(source, system string)
	// Read: the source has read objects so far, in units distinct units
	// (files, projects, DAGs, vhosts); called on every AddRead.
	Read(source string, units, objects int)
	// Finished: the source's collection ended after elapsed; c is its
	// coverage (state, reads, errors, notes) as the estate will hold it.
	Finished(c model.Coverage, elapsed time.Duration)
}

type observerKey struct{}

// WithObserver returns ctx carrying o: every Run under ctx tells it of
// each source's progress (audit's two rounds, plans then the rest, alike).
func WithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

// observerOf is ctx's observer, or one that hears nothing.
func observerOf(ctx context.Context) Observer {
	if o, ok := ctx.Value(observerKey{}).(Observer); ok && o != nil {
		return o
	}
	return deaf{}
}

type deaf struct{}

func (deaf) Started(string, string)                 {}
func (deaf) Read(string, int, int)                  {}
func (deaf) Finished(model.Coverage, time.Duration) {}
