package collectors

import (
	"sync"

	"github.com/bfaudit/bfaudit/model"
)

// NewTestSink returns a Sink that keeps everything, for collectors' tests.
func NewTestSink() *TestSink { return &TestSink{} }

// TestSink records what a collector emitted; for tests.
type TestSink struct {
	mu        sync.Mutex
	Backfills []model.Backfill
	Artifacts []model.Artifact
	Records   []model.DecisionRecord
	Edges     []model.Edge
	Builds    []model.Build
	Errors    []model.ScopeError
	Reads     []model.UnitRead
}

func (t *TestSink) AddRead(scope, what string, n, partial int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.Reads = addRead(t.Reads, scope, what, n, partial)
}

// Read returns how many objects of kind what were read at scope ("" for
// every scope) and how many of them only in part.
func (t *TestSink) Read(scope, what string) (n, partial int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.Reads {
		if r.What == what && (scope == "" || r.Scope == scope) {
			n += r.Read
			partial += r.Partial
		}
	}
	return n, partial
}

func (t *TestSink) AddBackfill(b model.Backfill)     { keep(t, &t.Backfills, b) }
func (t *TestSink) AddArtifact(a model.Artifact)     { keep(t, &t.Artifacts, a) }
func (t *TestSink) AddRecord(r model.DecisionRecord) { keep(t, &t.Records, r) }
func (t *TestSink) AddEdge(e model.Edge)             { keep(t, &t.Edges, e) }
func (t *TestSink) AddBuild(b model.Build)           { keep(t, &t.Builds, b) }

func (t *TestSink) AddError(scope string, err error) {
	keep(t, &t.Errors, model.ScopeError{Scope: scope, Error: err.Error()})
}

// keep appends v to one of the test sink's lists.
func keep[T any](t *TestSink, list *[]T, v T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	*list = append(*list, v)
}

// Artifact returns the artifact with uri, or nil.
func (t *TestSink) Artifact(uri string) *model.Artifact {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.Artifacts {
		if t.Artifacts[i].URI == uri {
			return &t.Artifacts[i]
		}
	}
	return nil
}
