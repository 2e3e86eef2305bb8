package inventory_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/inventory"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// A temp table of BF-7001 without expiration (BF005) and the plan's
// elevated grant still in force (BF003), in one file; an alert in another.
const (
	warehouse = `artifacts:
  - kind: table
    system: bigquery
    scope: proj
    uri: bigquery://proj/ds/bf_7001_tmp
    name: bf_7001_tmp
    labels: {backfill_id: bf-7001}
    state: active
  - kind: grant
    system: gcpiam
    scope: proj
    uri: gcpiam://proj/bindings/roles/bigquery.dataEditor/serviceAccount:bf-7001@proj.iam.gserviceaccount.com
    name: roles/bigquery.dataEditor
    backfill_id: BF-7001
    state: active
    attributes:
      principal: serviceAccount:bf-7001@proj.iam.gserviceaccount.com
      role: roles/bigquery.dataEditor
`
	alerts = "artifacts:\n  - {kind: alert, uri: 'mon://alerts/bf-7001-lag', name: bf_7001_lag, backfill_id: BF-7001, state: enabled, attributes: {watches_backfill: \"true\"}}\n"
)

func unit(kind, scope string, breakIt func(t *testing.T, dir string)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "inventory"), 0o755)
		for name, body := range map[string]string{"inventory/warehouse.yaml": warehouse, "inventory/alerts.yaml": alerts} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		inv := &inventory.Inventory{Files: []string{"./inventory/warehouse.yaml", "inventory/alerts.yaml"}}
		if err := inv.Init(collectors.Env{Source: "inventory", BaseDir: dir, Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
			t.Fatal(err)
		}
		return inv, func() { breakIt(t, dir) }
	}}
}

func write(name, body string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFaultMatrix(t *testing.T) {
	faultmatrix.Run(t, "inventory", []faultmatrix.Unit{
		// Issue 11, reproductions 1 and 3.
		unit("file", "inventory/warehouse.yaml", write("inventory/warehouse.yaml", "artifacts:\n  - kind: table\n    uri: [unclosed")),
		unit("file", "inventory/warehouse.yaml", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "inventory/warehouse.yaml")) }),
		unit("file", "inventory/warehouse.yaml", write("inventory/warehouse.yaml", "")),
		unit("file", "inventory/alerts.yaml", write("inventory/alerts.yaml", "null\n")),
	})
}
