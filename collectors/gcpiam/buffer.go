package gcpiam

import (
	"sync"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// buffer holds what a call made in Units emitted (a project's policy, its
// account listing) until CollectUnit reports it at its unit: every unit
// needs every project's accounts, but each project is reported once, by
// the shard that reads it.
type buffer struct {
	mu    sync.Mutex
	calls []func(collectors.Sink)
	err   error // the call's own failure, the unit's error
}

func (b *buffer) add(f func(collectors.Sink)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, f)
}

// replay emits what was held into sink and returns the call's error.
func (b *buffer) replay(sink collectors.Sink) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range b.calls {
		f(sink)
	}
	return b.err
}

func (b *buffer) AddBackfill(x model.Backfill)     { b.add(func(s collectors.Sink) { s.AddBackfill(x) }) }
func (b *buffer) AddArtifact(x model.Artifact)     { b.add(func(s collectors.Sink) { s.AddArtifact(x) }) }
func (b *buffer) AddRecord(x model.DecisionRecord) { b.add(func(s collectors.Sink) { s.AddRecord(x) }) }
func (b *buffer) AddEdge(x model.Edge)             { b.add(func(s collectors.Sink) { s.AddEdge(x) }) }
func (b *buffer) AddBuild(x model.Build)           { b.add(func(s collectors.Sink) { s.AddBuild(x) }) }
func (b *buffer) AddError(scope string, err error) {
	b.add(func(s collectors.Sink) { s.AddError(scope, err) })
}
func (b *buffer) AddRead(scope, what string, n, partial int) {
	b.add(func(s collectors.Sink) { s.AddRead(scope, what, n, partial) })
}
