package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tlsServer serves h over TLS on loopback: clientcmd sends a kubeconfig's
// token only over TLS, and the token is what must not leak.
func tlsServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// kubeconfig writes a kubeconfig for server with a bearer token and
// returns its path.
func kubeconfig(t *testing.T, server, token string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %q, insecure-skip-tls-verify: true}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: %q}
`, server, token)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// apiServer answers CronJob and Job lists of namespace "ok" as a real API
// server would, and hands every request for namespace "bad" (or every
// request at all, when ns is "") to bad.
func apiServer(badNS string, bad http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if badNS == "" || strings.Contains(r.URL.Path, "/namespaces/"+badNS+"/") {
			bad.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		var list any
		if strings.HasSuffix(r.URL.Path, "/cronjobs") {
			list = batchv1.CronJobList{TypeMeta: metav1.TypeMeta{Kind: "CronJobList", APIVersion: "batch/v1"},
				ListMeta: metav1.ListMeta{ResourceVersion: "7"},
				Items: []batchv1.CronJob{{ObjectMeta: meta("ok", "bf-1-replay", map[string]string{"backfill-id": "BF-1"}),
					Spec: batchv1.CronJobSpec{Schedule: "@daily"}}}}
		} else {
			list = batchv1.JobList{TypeMeta: metav1.TypeMeta{Kind: "JobList", APIVersion: "batch/v1"},
				ListMeta: metav1.ListMeta{ResourceVersion: "7"}}
		}
		json.NewEncoder(w).Encode(list)
	})
}

// hostileCollector is a collector built by Init from a kubeconfig, as in
// production, with a 1s per-call timeout and the canary as its token.
func hostileCollector(t *testing.T, url string, namespaces []string) *Kubernetes {
	t.Helper()
	c := New()
	c.Kubeconfig = kubeconfig(t, url, hostile.Canary)
	c.Namespaces = namespaces
	c.Timeout = time.Second
	if err := c.Init(env("k8s-hostile")); err != nil {
		t.Fatal(err)
	}
	return c
}

// collectWithin runs Collect and fails the test if it has not returned
// within 20s (the collector's per-call timeout is 1s).
func collectWithin(t *testing.T, c collectors.Collector) (*collectors.TestSink, error) {
	t.Helper()
	sink := collectors.NewTestSink()
	done := make(chan error, 1)
	go func() { done <- collectors.Collect(context.Background(), c, sink) }()
	select {
	case err := <-done:
		return sink, err
	case <-time.After(20 * time.Second):
		t.Fatal("Collect still running after 20s with a 1s per-call timeout")
	}
	return nil, nil
}

func TestHostileAPIServerDegradesOnlyItsNamespace(t *testing.T) {
	endless := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"CronJobList","apiVersion":"batch/v1","metadata":{"resourceVersion":"1","continue":"again"},"items":[]}`)
	})
	tests := []struct {
		name string
		bad  http.Handler
		want string
	}{
		{"stalls", hostile.Stall(), "deadline|Timeout"},
		{"drips", hostile.Drip(100 * time.Millisecond), ""}, // the deadline ends it mid-body
		{"429 Retry-After 3600", hostile.RetryAfter(http.StatusTooManyRequests, 3600), "beyond the retry budget"},
		{"503 Retry-After 3600", hostile.RetryAfter(http.StatusServiceUnavailable, 3600), "beyond the retry budget"},
		// Read whole it is not a list; on a slow machine the deadline
		// may end it first. Either way, only "bad" is degraded.
		{"50 MB answer", hostile.Huge(50 << 20), ""},
		{"header-echoing 502", sendsToken(t, hostile.EchoHeaders(http.StatusBadGateway)), "HTTP 502"},
		{"same continue token", endless, "continue token it already gave"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tlsServer(t, apiServer("bad", tt.bad))
			c := hostileCollector(t, srv.URL, []string{"ok", "bad"})
			c.Retry.Sleep = func(context.Context, time.Duration) error { return nil }
			sink, err := collectWithin(t, c)
			if err != nil {
				t.Fatalf("Collect failed the source: %v", err)
			}
			if len(sink.Errors) != 1 || sink.Errors[0].Scope != "bad" || !containsAny(sink.Errors[0].Error, tt.want) {
				t.Errorf("errors %+v, want one at scope bad mentioning %q", sink.Errors, tt.want)
			}
			if a := sink.Artifact("kubernetes://k8s-hostile/ok/cronjobs/bf-1-replay"); a == nil || a.Scope != "ok" {
				t.Errorf("the healthy namespace was not read: %v", names(sink))
			}
			for _, e := range sink.Errors {
				if strings.Contains(e.Error, hostile.Canary) || strings.Contains(e.Error, "<html>") {
					t.Errorf("error text leaks the answer: %s", e.Error)
				}
			}
		})
	}
}

// client-go by itself retries a 429 with Retry-After ten times and sleeps
// the full Retry-After: the source must fail within its budget instead.
func TestClusterWide429WithHugeRetryAfterFailsFast(t *testing.T) {
	n := hostile.Count(hostile.RetryAfter(http.StatusTooManyRequests, 3600))
	srv := tlsServer(t, n)
	c := hostileCollector(t, srv.URL, nil)
	_, err := collectWithin(t, c)
	if err == nil || !strings.Contains(err.Error(), "beyond the retry budget") {
		t.Fatalf("Collect() = %v, want the source failed for a Retry-After beyond the budget", err)
	}
	if n.N() != 1 {
		t.Errorf("%d requests, want 1: neither client-go nor the collector may retry a 1h Retry-After", n.N())
	}
	if strings.Contains(err.Error(), hostile.Canary) {
		t.Errorf("error leaks the token: %v", err)
	}
}

// A short Retry-After is honoured by the collector's own policy, once.
func TestShortRetryAfterIsRetriedByThePolicy(t *testing.T) {
	var throttled atomic.Bool
	var waits []time.Duration
	srv := tlsServer(t, apiServer("", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/cronjobs") && !throttled.Swap(true) {
			hostile.RetryAfter(http.StatusTooManyRequests, 2).ServeHTTP(w, r)
			return
		}
		apiServer("none", nil).ServeHTTP(w, r)
	})))
	c := hostileCollector(t, srv.URL, []string{"ok"})
	c.Retry.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	sink, err := collectWithin(t, c)
	if err != nil || len(sink.Errors) != 0 {
		t.Fatalf("Collect() = %v, errors %v", err, sink.Errors)
	}
	if len(waits) != 1 || waits[0] != 2*time.Second {
		t.Errorf("waits %v, want one of 2s", waits)
	}
}

func TestTimeoutMustBePositive(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second, 24 * time.Hour} {
		c := New()
		c.Kubeconfig = "testdata/kubeconfig"
		c.Timeout = d
		if err := c.Init(env("")); err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("timeout %s: Init() = %v, want it refused", d, err)
		}
	}
}

// containsAny reports whether s holds one of the |-separated parts of want.
func containsAny(s, want string) bool {
	for _, w := range strings.Split(want, "|") {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// sendsToken checks that requests carry the canary token, so a test that
// finds no canary in the errors proves something.
func sendsToken(t *testing.T, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+hostile.Canary {
			t.Errorf("request without the canary token: %q", r.Header.Get("Authorization"))
		}
		h.ServeHTTP(w, r)
	})
}
