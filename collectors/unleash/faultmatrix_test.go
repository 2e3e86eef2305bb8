package unleash

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// matrixFlag is what an Unleash holds after BF-7001: the replay's flag,
// tagged backfill:bf-7001, still on in production.
const matrixFlag = "ledger-replay-writes"

var matrixFeatures = map[string]any{"features": []any{
	map[string]any{"name": matrixFlag, "type": "operational", "project": "default", "description": "route ledger writes to the replay",
		"stale": false, "createdAt": "2026-01-05T00:00:00.000Z", "archivedAt": nil, "lastSeenAt": "2026-05-30T00:00:00.000Z",
		"environments": []any{
			map[string]any{"name": "development", "enabled": false, "type": "development", "lastSeenAt": nil},
			map[string]any{"name": "production", "enabled": true, "type": "production", "lastSeenAt": "2026-05-30T00:00:00.000Z"}},
		"tags": []any{map[string]any{"type": "backfill", "value": "bf-7001"}}},
	map[string]any{"name": "checkout-v2", "type": "release", "project": "default", "createdAt": "2026-01-01T00:00:00.000Z",
		"environments": []any{map[string]any{"name": "production", "enabled": true, "type": "production"}}},
}}

// matrixHidden is the same backfill's guard in project payments, which the
// project listing does not name (as the open-source edition lists only
// default): found through the flag search across projects.
const matrixHidden = "refund-replay-guard"

var matrixHiddenFeatures = map[string]any{"features": []any{
	map[string]any{"name": matrixHidden, "type": "kill-switch", "project": "payments", "description": "pause refund e-mails during the replay",
		"createdAt": "2026-01-05T00:00:00.000Z", "archivedAt": nil,
		"environments": []any{map[string]any{"name": "production", "enabled": true, "type": "production"}},
		"tags":         []any{map[string]any{"type": "backfill", "value": "bf-7001"}}},
}}

// unit serves the fixture and breaks it with breakIt before the second run.
func unit(kind, scope string, breakIt func(f *fakeUnleash)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		f := newFake(t)
		f.setJSON("projects.json", map[string]any{"projects": []any{map[string]any{"id": "default", "name": "Default"}}})
		f.setJSON("projects/default/features.json", matrixFeatures)
		f.setJSON("projects/default/archived.json", map[string]any{"features": []any{}})
		f.setJSON("projects/payments/features.json", matrixHiddenFeatures)
		c := newCollector(t, f.URL())
		c.Timeout = 500 * time.Millisecond // the slow answers below outlast it
		return c, func() { breakIt(f) }
	}}
}

func TestFaultMatrix(t *testing.T) {
	flag := model.JoinScope("default", matrixFlag)
	hiddenFlag := model.JoinScope("payments", matrixHidden)
	faultmatrix.Run(t, "unleash", []faultmatrix.Unit{
		unit("source", "", func(f *fakeUnleash) { f.srv.Close() }),                                 // server down
		unit("source", "", func(f *fakeUnleash) { f.set("/api/admin/projects", status(500)) }),     // 500
		unit("source", "", func(f *fakeUnleash) { f.set("/api/admin/projects", hostile.Stall()) }), // slow answer
		unit("source", "", func(f *fakeUnleash) { f.set("/api/admin/environments", status(401)) }), // token revoked
		unit("project", "default", func(f *fakeUnleash) { f.set("/api/admin/search/features", status(500)) }),
		unit("project", "default", func(f *fakeUnleash) { f.set("/api/admin/search/features", hostile.Drip(100*time.Millisecond)) }),
		unit("project", "default", func(f *fakeUnleash) { f.set("/api/admin/search/features#archived", status(503)) }),
		unit("flag", flag, func(f *fakeUnleash) { f.set("/api/admin/projects/default/features/"+matrixFlag, status(500)) }),
		unit("flag", flag, func(f *fakeUnleash) { f.set("/api/admin/projects/default/features/"+matrixFlag, hostile.Stall()) }),
		// The search for projects the listing lacks: which projects there
		// are did not answer, so no project's flags are concluded gone.
		unit("source", "", func(f *fakeUnleash) { f.set("/api/admin/search/features#discover", status(500)) }),
		unit("source", "", func(f *fakeUnleash) { f.set("/api/admin/search/features#discover#archived", hostile.Stall()) }),
		// A project the listing lacks is a unit of its own.
		unit("project", "payments", func(f *fakeUnleash) { f.set("/api/admin/search/features@IS:payments", status(500)) }),
		unit("project", "payments", func(f *fakeUnleash) { f.set("/api/admin/search/features#archived@IS:payments", status(503)) }),
		unit("flag", hiddenFlag, func(f *fakeUnleash) { f.set("/api/admin/projects/payments/features/"+matrixHidden, status(500)) }),
	})
}
