package alertmanager

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// matrixSilences is what an Alertmanager holds after BF-7001: a silence of
// its series set to end long after the backfill's expiry (BF016), created
// by the backfill's owner, which mutes a critical alert right now.
var matrixSilences = []any{
	map[string]any{"id": "7001aaaa-0000-4000-8000-000000000001", "status": map[string]any{"state": "active"},
		"updatedAt": "2026-01-05T00:00:00Z", "comment": "mute the ledger alerts during the replay", "createdBy": "data-eng@example.com",
		"startsAt": "2026-01-05T00:00:00Z", "endsAt": "2026-09-01T00:00:00Z",
		"matchers": []any{map[string]any{"name": "backfill_id", "value": "bf-7001", "isRegex": false, "isEqual": true}}},
}

var matrixAlerts = []byte(`[{"labels": {"alertname": "LedgerLag", "backfill_id": "bf-7001", "severity": "critical"},
  "status": {"state": "suppressed", "silencedBy": ["7001aaaa-0000-4000-8000-000000000001"], "inhibitedBy": []}}]`)

// unit serves the fixture and breaks it with breakIt before the second run.
func unit(kind, scope string, breakIt func(f *fakeAM)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		f := newFakeAM(t)
		f.setSilences(matrixSilences)
		f.mu.Lock()
		f.alerts = matrixAlerts
		f.mu.Unlock()
		c := newCollector(t, f.URL())
		c.Timeout = 500 * time.Millisecond // the slow answers below outlast it
		return c, func() { breakIt(f) }
	}}
}

func TestFaultMatrix(t *testing.T) {
	faultmatrix.Run(t, "alertmanager", []faultmatrix.Unit{
		unit("source", "", func(f *fakeAM) { f.srv.Close() }),                                     // server down
		unit("source", "", func(f *fakeAM) { f.set("/api/v2/silences", status(500)) }),            // 500
		unit("source", "", func(f *fakeAM) { f.set("/api/v2/silences", hostile.Stall()) }),        // slow answer
		unit("silences", ScopeSilences, func(f *fakeAM) { f.set("/api/v2/alerts", status(500)) }), // the muted alerts: 500
		unit("silences", ScopeSilences, func(f *fakeAM) { f.set("/api/v2/alerts", hostile.Drip(100*time.Millisecond)) }),
	})
}
