package hostile

import (
	"context"
	"net/http"
)

// contextWithRelease is a request context that also ends when the test
// server is being closed, so stalled handlers let go.
type contextWithRelease struct {
	context.Context
	ch chan struct{}
}

func (c contextWithRelease) Value(k any) any {
	if k == (releaseKey{}) {
		return c.ch
	}
	return c.Context.Value(k)
}

func releaseOf(r *http.Request) <-chan struct{} {
	ch, _ := r.Context().Value(releaseKey{}).(chan struct{})
	return ch
}

func waitDone(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-releaseOf(r):
	}
}
