package grafana

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
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

// The whole server misbehaves: the source fails within its bounds, says
// why, and the token is in no error.
func TestHostileWholeServer(t *testing.T) {
	collectortest.HostileWholeServer(t, func(t *testing.T, url string) collectors.Collector { return hostileCollector(t, url) })
}

// One folder's search or one dashboard misbehaves: the error stays at
// that unit, the rest is reported, nothing leaks.
func TestHostileUnits(t *testing.T) {
	for _, tt := range collectortest.HostileCases {
		t.Run("folder/"+tt.Name, func(t *testing.T) {
			f := estate(t)
			f.set("/api/search", failSearchOf(f, "finance", tt.Handler()))
			sink := collectortest.CollectBroken(t, hostileCollector(t, f.URL()), "finance", tt.Want)
			if sink.Artifact("grafana://grafana/dashboards/bf1234-monitor") == nil {
				t.Error("the other folders were not reported")
			}
		})
		t.Run("dashboard/"+tt.Name, func(t *testing.T) {
			f := estate(t)
			f.set("/api/dashboards/uid/refunds-live", tt.Handler())
			sink := collectortest.CollectBroken(t, hostileCollector(t, f.URL()), "analytics/refunds-live", tt.Want)
			if sink.Artifact("grafana://grafana/dashboards/bf1234-monitor") == nil {
				t.Error("the folder's other dashboard was not reported")
			}
		})
	}
}
