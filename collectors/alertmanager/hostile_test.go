package alertmanager

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// hostileCollector logs in with hostile.Canary as its password, with a
// one-second call timeout and short real retry waits.
func hostileCollector(t *testing.T, url string) *Alertmanager {
	t.Helper()
	t.Setenv("TEST_AM_PASSWORD", hostile.Canary)
	a := New()
	a.URL, a.Username, a.PasswordEnv = url, "bfaudit", "TEST_AM_PASSWORD"
	a.Timeout = time.Second
	a.Retry = remote.RetryPolicy{Base: 10 * time.Millisecond}
	if err := a.Init(env("am")); err != nil {
		t.Fatal(err)
	}
	return a
}

// The whole server misbehaves: the source fails within its bounds and
// says why, and the password is in no error.
func TestHostileWholeServer(t *testing.T) {
	collectortest.HostileWholeServer(t, func(t *testing.T, url string) collectors.Collector { return hostileCollector(t, url) })
}

// Only the alert listing misbehaves: the silences are still reported, the
// error stays at the silences unit, and nothing leaks.
func TestHostileAlertListing(t *testing.T) {
	collectortest.HostileUnit(t, ScopeSilences,
		func(t *testing.T, url string) collectors.Collector { return hostileCollector(t, url) },
		func(t *testing.T, h http.Handler) string {
			f := newFakeAM(t)
			f.set("/api/v2/alerts", h)
			return f.URL()
		},
		func(t *testing.T, sink *collectors.TestSink) {
			if sink.Artifact("alertmanager://am/silences/"+activeID) == nil {
				t.Error("the silences were not reported")
			}
		})
}

// A server that never ends an answer is cut off by the run's own context
// too, not only by the call timeout.
func TestCollectHonoursTheRunsContext(t *testing.T) {
	c := hostileCollector(t, hostile.Server(t, hostile.Stall()).URL)
	c.Timeout = time.Minute
	if err := c.Init(env("am")); err != nil {
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
