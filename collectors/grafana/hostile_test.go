package grafana

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// hostileCollector sends hostile.Canary as its token, with a one-second
// call timeout and short real retry waits.
func hostileCollector(t *testing.T, url string) *Grafana {
	t.Helper()
	t.Setenv("TEST_GRAFANA_TOKEN", hostile.Canary)
	g := New()
	g.URL, g.TokenEnv = url, "TEST_GRAFANA_TOKEN"
	g.Timeout = time.Second
	g.Retry = remote.RetryPolicy{Base: 10 * time.Millisecond}
	if err := g.Init(testEnv()); err != nil {
		t.Fatal(err)
	}
	return g
}

var hostileCases = []struct {
	name string
	h    func() http.Handler
	want string
}{
	{"stall", hostile.Stall, "deadline"},
	{"drip", func() http.Handler { return hostile.Drip(50 * time.Millisecond) }, "deadline"},
	{"503 Retry-After 3600", func() http.Handler { return hostile.RetryAfter(503, 3600) }, "HTTP 503"},
	{"header-echoing 502", func() http.Handler { return hostile.EchoHeaders(502) }, "HTTP 502"},
	{"answer over the cap", func() http.Handler { return hostile.Huge(70 << 20) }, "GET"},
}

// The whole server misbehaves: the source fails within its bounds, says
// why, and the token is in no error.
func TestHostileWholeServer(t *testing.T) {
	for _, tt := range hostileCases {
		t.Run(tt.name, func(t *testing.T) {
			url := hostile.Server(t, tt.h()).URL
			sink, err := collectortest.Collect(t, hostileCollector(t, url))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Collect = %v, want the source failed saying %q", err, tt.want)
			}
			out, _ := json.Marshal(sink)
			for _, s := range []string{err.Error(), string(out)} {
				if strings.Contains(s, hostile.Canary) || strings.Contains(s, "<html") {
					t.Errorf("the answer or the token leaked: %s", s)
				}
			}
		})
	}
}

// One folder's search or one dashboard misbehaves: the error stays at
// that unit, the rest is reported, nothing leaks.
func TestHostileUnits(t *testing.T) {
	for _, tt := range hostileCases {
		t.Run("folder/"+tt.name, func(t *testing.T) {
			f := estate(t)
			f.set("/api/search", failSearchOf(f, "finance", tt.h()))
			sink := collectortest.CollectBroken(t, hostileCollector(t, f.URL()), "finance", tt.want)
			if sink.Artifact("grafana://grafana/dashboards/bf1234-monitor") == nil {
				t.Error("the other folders were not reported")
			}
		})
		t.Run("dashboard/"+tt.name, func(t *testing.T) {
			f := estate(t)
			f.set("/api/dashboards/uid/refunds-live", tt.h())
			sink := collectortest.CollectBroken(t, hostileCollector(t, f.URL()), "analytics/refunds-live", tt.want)
			if sink.Artifact("grafana://grafana/dashboards/bf1234-monitor") == nil {
				t.Error("the folder's other dashboard was not reported")
			}
		})
	}
}
