package alertmanager

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
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

var hostileCases = []struct {
	name string
	h    func() http.Handler
	want string // in the error
}{
	{"stall", hostile.Stall, "deadline"},
	{"drip", func() http.Handler { return hostile.Drip(50 * time.Millisecond) }, "deadline"},
	{"503 Retry-After 3600", func() http.Handler { return hostile.RetryAfter(503, 3600) }, "HTTP 503"},
	{"header-echoing 502", func() http.Handler { return hostile.EchoHeaders(502) }, "HTTP 502"},
	// Read within the call timeout or not (the machine's speed decides),
	// a huge answer ends in an error; apiclient's tests pin the cap.
	{"50 MB answer", func() http.Handler { return hostile.Huge(50 << 20) }, "GET"},
	{"answer over the cap", func() http.Handler { return hostile.Huge(70 << 20) }, "GET"},
}

// The whole server misbehaves: the source fails within its bounds and
// says why, and the password is in no error.
func TestHostileWholeServer(t *testing.T) {
	cases := append([]struct {
		name string
		h    func() http.Handler
		want string
	}{{"accepts and stalls (TCP)", nil, "deadline"}}, hostileCases...)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			url := ""
			if tt.h == nil {
				url = "http://" + hostile.AcceptAndStall(t)
			} else {
				url = hostile.Server(t, tt.h()).URL
			}
			sink, err := collectortest.Collect(t, hostileCollector(t, url))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Collect = %v, want the source failed saying %q", err, tt.want)
			}
			out, _ := json.Marshal(sink)
			for _, s := range []string{err.Error(), string(out)} {
				if strings.Contains(s, hostile.Canary) || strings.Contains(s, "<html") {
					t.Errorf("the answer or the password leaked: %s", s)
				}
			}
		})
	}
}

// Only the alert listing misbehaves: the silences are still reported, the
// error stays at the silences unit, and nothing leaks.
func TestHostileAlertListing(t *testing.T) {
	for _, tt := range hostileCases {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAM(t)
			f.set("/api/v2/alerts", tt.h())
			sink := collectortest.CollectBroken(t, hostileCollector(t, f.URL()), ScopeSilences, tt.want)
			if sink.Artifact("alertmanager://am/silences/"+activeID) == nil {
				t.Error("the silences were not reported")
			}
		})
	}
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
