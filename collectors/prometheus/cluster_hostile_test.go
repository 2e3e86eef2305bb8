package prometheus

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// apiServer answers as a Kubernetes API server with the Prometheus
// Operator's CRD: discovery, and a PrometheusRule in every namespace's
// listing. Requests for namespace badNS (every request when badNS is "")
// go to bad.
func apiServer(t *testing.T, badNS string, bad http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+hostile.Canary {
			t.Errorf("request without the canary token: %q", r.Header.Get("Authorization"))
		}
		if badNS == "" || strings.Contains(r.URL.Path, "/namespaces/"+badNS+"/") {
			bad.ServeHTTP(w, r)
			return
		}
		var v any
		switch p := r.URL.Path; {
		case p == "/api":
			v = metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}}
		case p == "/apis":
			gv := metav1.GroupVersionForDiscovery{GroupVersion: "monitoring.coreos.com/v1", Version: "v1"}
			v = metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
				Groups: []metav1.APIGroup{{Name: "monitoring.coreos.com", Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}}}
		case p == "/apis/monitoring.coreos.com/v1":
			v = metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "monitoring.coreos.com/v1",
				APIResources: []metav1.APIResource{{Name: "prometheusrules", Namespaced: true, Kind: "PrometheusRule", Verbs: []string{"get", "list"}}}}
		case strings.HasSuffix(p, "/prometheusrules"):
			ns := strings.Split(strings.TrimPrefix(p, "/apis/monitoring.coreos.com/v1/namespaces/"), "/")[0]
			v = map[string]any{"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRuleList", "metadata": map[string]any{"resourceVersion": "7"},
				"items": []any{map[string]any{"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
					"metadata": map[string]any{"name": "bf-1-alerts", "namespace": ns},
					"spec": map[string]any{"groups": []any{map[string]any{"name": "replay", "rules": []any{
						map[string]any{"alert": "ReplayLag", "expr": `max(backfill_lag_seconds{backfill_id="bf-1"}) > 600`}}}}}}}}
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	})
}

// clusterFrom reads the cluster at url through a kubeconfig, as in
// production: the canary is its token, each call has a 1s timeout.
func clusterFrom(t *testing.T, url string, namespaces ...string) *Prometheus {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
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
`, url, hostile.Canary)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := New()
	p.Kubernetes = &Cluster{Kubeconfig: kubeconfig, Namespaces: namespaces}
	p.Timeout = time.Second
	p.MaxPages = 20
	p.Retry = remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := p.Init(env("k8s-rules", "")); err != nil {
		t.Fatal(err)
	}
	return p
}

// tlsServer serves h on loopback over TLS: client-go sends a kubeconfig's
// token only over TLS, and the token is what must not leak.
func tlsServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewTLSServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// Through client-go's real clients: one misbehaving namespace is an error
// there, within the timeout, leaking nothing; the other is read.
func TestClusterHostileNamespace(t *testing.T) {
	endless := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"PrometheusRuleList","apiVersion":"monitoring.coreos.com/v1","metadata":{"resourceVersion":"1","continue":"again"},"items":[]}`)
	})
	notAList := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"PrometheusRuleList","apiVersion":"monitoring.coreos.com/v1","items":[]}`)
	})
	for _, tt := range []struct {
		name string
		bad  http.Handler
		want string
	}{
		// The call's context or the client's timeout ends it, whichever
		// fires first on a loaded machine: "context deadline exceeded" or
		// "Client.Timeout exceeded while awaiting headers".
		{"stalls", hostile.Stall(), "exceeded"},
		{"429 Retry-After 3600", hostile.RetryAfter(http.StatusTooManyRequests, 3600), "beyond the retry budget"},
		{"header-echoing 502", hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502"},
		{"the same continue token", endless, "already read: the listing does not advance"},
		{"a list without resourceVersion", notAList, "not a Kubernetes list"},
		{"50 MB answer", hostile.Huge(50 << 20), "list prometheusrules"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := clusterFrom(t, tlsServer(t, apiServer(t, "bad", tt.bad)), "ok", "bad")
			sink := collectortest.CollectBroken(t, p, "bad", tt.want)
			for _, e := range sink.Errors {
				if len(e.Error) > 1000 {
					t.Errorf("an error of %d characters: client-go quotes the answer, and it must be cut", len(e.Error))
				}
			}
			if a := sink.Artifact("prometheus://k8s-rules/prometheusrules/ok/bf-1-alerts/replay/alert/ReplayLag"); a == nil || a.Scope != "ok/bf-1-alerts" {
				t.Errorf("the namespace that answered was not read: %v", uris(sink))
			}
		})
	}
}

// client-go by itself retries a 429 with Retry-After ten times, sleeping
// the full Retry-After: the source fails at once instead, after one call.
func TestClusterHugeRetryAfterFailsFast(t *testing.T) {
	n := hostile.Count(hostile.RetryAfter(http.StatusTooManyRequests, 3600))
	p := clusterFrom(t, tlsServer(t, apiServer(t, "", n)))
	_, err := collectortest.Collect(t, p)
	if err == nil || !strings.Contains(err.Error(), "beyond the retry budget") || strings.Contains(err.Error(), hostile.Canary) {
		t.Fatalf("Collect() = %v, want the source failed for a Retry-After beyond the budget", err)
	}
	if n.N() != 1 {
		t.Errorf("%d requests, want 1: neither client-go nor the collector may retry a 1h Retry-After", n.N())
	}
}

// A proxy that answers 404 to everything is not a cluster without the
// CRD: the source fails, and no note says "no PrometheusRule".
func TestClusterBehindA404Proxy(t *testing.T) {
	p := clusterFrom(t, tlsServer(t, apiServer(t, "", http.NotFoundHandler())), "ok")
	sink, err := collectortest.Collect(t, p)
	if err == nil || !strings.Contains(err.Error(), "discover monitoring.coreos.com/v1") || len(p.Notes()) > 0 || len(sink.Artifacts) > 0 {
		t.Errorf("Collect() = %v, notes %q: want the source failed", err, p.Notes())
	}
}
