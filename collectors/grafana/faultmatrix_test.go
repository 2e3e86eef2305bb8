package grafana

import (
	"net/http"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// matrixEstate holds, for BF-7001, a dashboard made for the backfill in
// folder analytics (BF007 flags it once the backfill is done: temporary
// and still there) and one in folder ops, the unit broken alone.
func matrixEstate(t *testing.T) *fakeGrafana {
	f := newFakeGrafana(t)
	f.addFolder("analytics", "Analytics", "")
	f.addFolder("ops", "Ops", "")
	f.addDashboard("analytics", "Analytics", "bf7001-monitor", "BF-7001 replay monitor", []string{"backfill"},
		panel("Rows", map[string]any{"refId": "A", "rawSql": "SELECT count(*) FROM ledger.bf_7001_entries"}))
	f.addDashboard("ops", "Ops", "bf7001-ops", "bf_7001 ops board", nil,
		panel("Lag", map[string]any{"refId": "A", "expr": `lag{job="bf_7001_replay"}`}))
	return f
}

// failSearchOf breaks the dashboard search of one folder only.
func failSearchOf(f *fakeGrafana, folderUID string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("folderUIDs") == folderUID {
			h.ServeHTTP(w, r)
			return
		}
		f.serve(w, r)
	})
}

func matrixUnit(kind, scope string, breakIt func(f *fakeGrafana)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		f := matrixEstate(t)
		g := newCollector(t, f.URL())
		g.Timeout = 500 * time.Millisecond // the slow answers below outlast it
		if err := g.Init(testEnv()); err != nil {
			t.Fatal(err)
		}
		return g, func() { breakIt(f) }
	}}
}

// matrixFileUnit is a folder of dashboard files (export_dir) holding, for
// BF-7001, a UI export in team/ and a ConfigMap in ops/; breakIt makes one
// file unreadable.
func matrixFileUnit(scope, file string) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: "file", Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		dir := t.TempDir()
		writeFile(t, dir, "team/bf7001-monitor.json", `{"title":"BF-7001 replay monitor","uid":"bf7001-monitor","schemaVersion":39,
			"panels":[{"type":"table","title":"Rows","targets":[{"refId":"A","rawSql":"SELECT count(*) FROM \"ledger\".\"bf_7001_entries\""}]}]}`)
		writeFile(t, dir, "ops/dashboards.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ops\ndata:\n  ops.json: |-\n"+
			`    {"title": "bf_7001 ops board", "uid": "bf7001-ops", "panels": [{"title": "Lag", "targets": [{"expr": "lag{job=\"bf_7001_replay\"}"}]}]}`+"\n")
		g := New()
		g.ExportDir = dir
		if err := g.Init(testEnv()); err != nil {
			t.Fatal(err)
		}
		return g, func() { writeFile(t, dir, file, "{\"panels\": [") }
	}}
}

func TestFaultMatrix(t *testing.T) {
	faultmatrix.Run(t, "grafana", []faultmatrix.Unit{
		matrixUnit("source", "", func(f *fakeGrafana) { f.set("/api/folders", status(500)) }),
		matrixUnit("source", "", func(f *fakeGrafana) { f.set("/api/folders", hostile.Stall()) }),
		matrixUnit("folder", "ops", func(f *fakeGrafana) { f.set("/api/search", failSearchOf(f, "ops", status(500))) }),
		matrixUnit("folder", "analytics", func(f *fakeGrafana) { f.set("/api/search", failSearchOf(f, "analytics", hostile.Stall())) }),
		matrixUnit("dashboard", "ops/bf7001-ops", func(f *fakeGrafana) { f.set("/api/dashboards/uid/bf7001-ops", status(500)) }),
		matrixUnit("dashboard", "analytics/bf7001-monitor", func(f *fakeGrafana) {
			f.set("/api/dashboards/uid/bf7001-monitor", hostile.Drip(100*time.Millisecond))
		}),
		matrixFileUnit("team/bf7001-monitor.json", "team/bf7001-monitor.json"),
		matrixFileUnit("ops/dashboards.yaml", "ops/dashboards.yaml"),
	})
}
