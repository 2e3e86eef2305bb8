package dbt_test

import (
	"testing"

	_ "github.com/bfaudit/bfaudit/collectors/dbt"
	"github.com/bfaudit/bfaudit/remedy"
)

// A stale model is rebuilt with dbt build, its name quoted for sh: a
// model's name comes from the manifest, not from bfaudit.
func TestRebuildIsADbtBuild(t *testing.T) {
	rebuild := remedy.SystemNamed("dbt").Rebuild
	if rebuild == nil {
		t.Fatal("dbt registers no rebuild")
	}
	for model, want := range map[string]string{
		"fct_revenue":      "dbt build --select fct_revenue",
		"orders; rm -rf /": "dbt build --select 'orders; rm -rf /'",
	} {
		if got := rebuild(model); got != want {
			t.Errorf("rebuild(%q) = %q, want %q", model, got, want)
		}
	}
}
