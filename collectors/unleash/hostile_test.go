package unleash

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// collectLoneBroken runs c, whose only unit (unit) is broken: the
// framework fails the source with that unit's error. It checks what
// collectortest.CollectBroken does of the errors: recorded only at or
// under unit, saying want, leaking neither the canary token nor the
// server's page.
func collectLoneBroken(t *testing.T, c collectors.Collector, unit, want string) *collectors.TestSink {
	t.Helper()
	sink, err := collectortest.Collect(t, c)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Collect = %v, want the source failed saying %q (its only unit did not answer)", err, want)
	}
	texts := []string{err.Error()}
	for _, e := range sink.Errors {
		texts = append(texts, e.Error)
		if !model.ScopeWithin(e.Scope, unit) {
			t.Errorf("error outside the broken unit %s: %s: %s", unit, e.Scope, e.Error)
		}
	}
	if len(sink.Errors) == 0 {
		t.Errorf("no error recorded at %s", unit)
	}
	if joined := strings.Join(texts, "\n"); strings.Contains(joined, hostile.Canary) || strings.Contains(joined, "<html") {
		t.Errorf("error text leaks the answer: %q", joined)
	}
	return sink
}

// hostileCollector sends hostile.Canary as its token, with a one-second
// call timeout and short real retry waits.
func hostileCollector(t *testing.T, url string) *Unleash {
	t.Helper()
	t.Setenv("TEST_UNLEASH_HOSTILE_TOKEN", hostile.Canary)
	u := New()
	u.URL, u.TokenEnv = url, "TEST_UNLEASH_HOSTILE_TOKEN"
	u.Timeout = time.Second
	u.Retry = remote.RetryPolicy{Base: 10 * time.Millisecond}
	if err := u.Init(testEnv("unl")); err != nil {
		t.Fatal(err)
	}
	return u
}

// The whole server misbehaves: the source fails within its bounds and
// says why, and the token is in no error.
func TestHostileWholeServer(t *testing.T) {
	collectortest.HostileWholeServer(t, func(t *testing.T, url string) collectors.Collector { return hostileCollector(t, url) })
}

// Only the project's flag search misbehaves: the error stays at the
// project (the only one, so no project answered and the source fails);
// only one flag's detail: at that flag, the others reported; only the
// search for projects the listing lacks: at the whole source.
func TestHostileUnits(t *testing.T) {
	for _, tt := range collectortest.HostileCases {
		t.Run("search "+tt.Name, func(t *testing.T) {
			f := newFake(t)
			f.set("/api/admin/search/features", tt.Handler())
			f.token = hostile.Canary
			collectLoneBroken(t, hostileCollector(t, f.URL()), "default", tt.Want)
		})
		t.Run("detail "+tt.Name, func(t *testing.T) {
			f := newFake(t)
			f.set("/api/admin/projects/default/features/bf_1234_dual_write", tt.Handler())
			f.token = hostile.Canary
			sink := collectortest.CollectBroken(t, hostileCollector(t, f.URL()), "default/bf_1234_dual_write", tt.Want)
			if len(sink.Artifacts) != 5 {
				t.Errorf("%d flags reported, want all 5", len(sink.Artifacts))
			}
		})
		// The search for projects the listing lacks: which projects there
		// are did not answer (the whole source), and the listed project's
		// flags are still reported.
		t.Run("search across projects "+tt.Name, func(t *testing.T) {
			f := newFake(t)
			f.set("/api/admin/search/features#discover", tt.Handler())
			f.token = hostile.Canary
			sink := collectortest.CollectBroken(t, hostileCollector(t, f.URL()), "", tt.Want)
			if len(sink.Errors) != 1 || sink.Errors[0].Scope != "" || len(sink.Artifacts) != 5 {
				t.Errorf("errors %+v and %d flags, want one error at the whole source and default's 5 flags", sink.Errors, len(sink.Artifacts))
			}
		})
	}
}

// A server that never ends an answer is cut off by the run's own context
// too, not only by the call timeout.
func TestCollectHonoursTheRunsContext(t *testing.T) {
	c := hostileCollector(t, hostile.Server(t, hostile.Stall()).URL)
	c.Timeout = time.Minute
	if err := c.Init(testEnv("unl")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- collectors.Collect(ctx, c, collectors.NewTestSink()) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Collect succeeded against a stalled server")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Collect ignored the run's context")
	}
}
