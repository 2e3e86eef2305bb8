package dbt

import "github.com/bfaudit/bfaudit/remedy"

// A dbt project's artifacts are read, not removed: what bfaudit prints for
// dbt is the build that brings a stale model up to date after a backfill
// rewrote its parents (BF024, BF025), in the rebuild order. It is printed,
// never run: builds belong to the team's own tooling.
func init() {
	remedy.RegisterSystem("dbt", remedy.System{Rebuild: func(model string) string {
		return "dbt build --select " + remedy.Quote(model)
	}})
}
