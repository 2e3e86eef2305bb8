package airflow

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Issue 23: the client Init builds keeps an idle connection for each call
// that runs at once, so the per-DAG calls reuse them. With Go's default of
// two per host, 4,700 calls opened 233 to 515 TCP connections.
func TestPerDAGCallsReuseConnections(t *testing.T) {
	f := newFakeAirflow(t, "2")
	f.maxPage = 100
	for i := range 200 {
		f.store.DAGs = append(f.store.DAGs, json.RawMessage(fmt.Sprintf(
			`{"dag_id":"bf_%d_replay","is_paused":false,"tags":[{"name":"backfill_id=BF-%d"}]}`, 5000+i, 5000+i)))
	}
	c, _ := newCollectorWith(t, f, "2", func(c *Airflow) {
		c.HTTPClient = nil // the client production builds
		c.Concurrency = 16
	})
	collect(t, c)
	f.mu.Lock()
	defer f.mu.Unlock()
	conns := map[string]bool{}
	for _, r := range f.requests {
		conns[r.RemoteAddr] = true
	}
	t.Logf("%d calls over %d connections", len(f.requests), len(conns))
	if len(f.requests) < 400 || len(conns) > c.Concurrency+2 {
		t.Errorf("%d calls opened %d connections; want at most concurrency (%d) and a spare or two", len(f.requests), len(conns), c.Concurrency)
	}
}
