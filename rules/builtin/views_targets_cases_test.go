package builtin_test

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// Cases of views in the lineage (BF024, BF025) and of targets written the
// way dbt users name tables (BF024, BF029).
func init() {
	firing = append(firing, viewsTargetsFiring...)
	quiet = append(quiet, viewsTargetsQuiet...)
}

// views marks tables of the lineage estate as views (dbt's
// materialized: view).
func (e *estate) views(tables ...string) *estate {
	for i := range e.est.Builds {
		for _, t := range tables {
			if e.est.Builds[i].Table == t {
				e.est.Builds[i].View = true
			}
		}
	}
	return e
}

// noFindingOn checks no finding is about a table.
func noFindingOn(table string) func(*testing.T, []model.Finding) {
	return func(t *testing.T, fs []model.Finding) {
		t.Helper()
		for _, f := range fs {
			if f.ArtifactURI == "lineage://"+table {
				t.Errorf("%s on the view %s: %s", f.RuleID, table, f.Message)
			}
		}
	}
}

// paymentsEstate is a dbt project as its manifest names it: the source
// raw.raw_payments (source.shop.raw.payments), the dbt seed raw_orders
// (seed.shop.raw_orders), stg_payments built from both, payments from
// stg_payments. Every table was built before the backfill completed.
func paymentsEstate() *estate {
	e := newEstate()
	e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: srcDBT, System: "dbt", Status: model.CoverageOK})
	edge := func(p, c string) model.Edge {
		return model.Edge{Parent: p, Child: c, System: "dbt", Source: srcDBT, Scope: "target/manifest.json", Via: "model.shop." + c}
	}
	e.est.Edges = []model.Edge{
		edge("shop.raw.raw_payments", "shop.main.stg_payments"), edge("shop.main.raw_orders", "shop.main.stg_payments"),
		edge("shop.main.stg_payments", "shop.main.payments"),
	}
	for _, b := range []struct{ table, node, id string }{
		{"shop.raw.raw_payments", "source:raw.payments", "source.shop.raw.payments"},
		{"shop.main.raw_orders", "raw_orders", "seed.shop.raw_orders"},
		{"shop.main.stg_payments", "stg_payments", "model.shop.stg_payments"},
		{"shop.main.payments", "payments", "model.shop.payments"},
	} {
		e.est.Builds = append(e.est.Builds, model.Build{Table: b.table, Node: b.node, NodeID: b.id, System: "dbt", Source: srcDBT,
			Scope: "target/manifest.json", Status: "success", At: done.Add(-48 * 60 * 60 * 1e9)})
	}
	return e
}

// whole checks a finding rests on every unit: one that does not answer
// keeps it open.
func whole(t *testing.T, fs []model.Finding) {
	t.Helper()
	for _, f := range fs {
		if !model.IsWholeBackfill(f.ArtifactURI) || f.Location == nil || f.Location.Path != "plans/BF-1.yaml" {
			t.Errorf("%s: uri %q at %+v: want a verdict on the whole backfill, at its plan", f.RuleID, f.ArtifactURI, f.Location)
		}
	}
}

func target(ts ...string) func(*model.Backfill) { return func(b *model.Backfill) { b.Targets = ts } }

var viewsTargetsFiring = []ruleCase{
	// A view reads its parents live: never stale itself, but what is
	// built from it still holds the old numbers.
	{rule: "BF024", name: "a view is no stale data, what is built from it is", want: 3,
		check: all(noFindingOn("p.stg.orders"), mentions("rebuild order: 1. p.int.orders, 2. p.mart.refunds, 3. p.mart.revenue")),
		build: func() *estate { return lineageEstate(allBuilt(-30)).views("p.stg.orders").plan(completed, targets) }},
	// stg.orders (a table) -> int.orders (a view) -> marts: the marts were
	// built before stg.orders, so through the view they read its old rows.
	{rule: "BF025", name: "a table built before the table its view reads", want: 2,
		check: all(noFindingOn("p.int.orders"), mentions("p.stg.orders was rebuilt 2026-09-01 17:00 UTC, after it")),
		build: func() *estate {
			return lineageEstate(map[string]float64{"p.stg.orders": 5, "p.int.orders": -40, "p.mart.revenue": 2, "p.mart.refunds": 2}).
				views("p.int.orders").plan(completed, targets)
		}},
	{rule: "BF024", name: "a target named by its dbt source id", want: 2, check: mentions("derived from shop.raw.raw_payments"),
		build: func() *estate { return paymentsEstate().plan(completed, target("source.shop.raw.payments")) }},
	{rule: "BF024", name: "a target named by its seed id", want: 2,
		build: func() *estate { return paymentsEstate().plan(completed, target("seed.shop.raw_orders")) }},
	{rule: "BF024", name: "a target named by its model id", want: 1,
		build: func() *estate { return paymentsEstate().plan(completed, target("model.shop.stg_payments")) }},
	{rule: "BF024", name: "a bare identifier only one table has", want: 2,
		build: func() *estate { return paymentsEstate().plan(completed, target("raw_payments")) }},
	{rule: "BF024", name: "schema.identifier", want: 2,
		build: func() *estate { return paymentsEstate().plan(completed, target("raw.raw_payments")) }},
	{rule: "BF024", name: "database.schema.identifier, quoted as Postgres writes it", want: 2,
		build: func() *estate { return paymentsEstate().plan(completed, target(`"shop"."raw"."raw_payments"`)) }},
	{rule: "BF029", name: "a target that matches nothing", want: 1,
		check: all(mentions("names target raw_paymnts, which matches no table of the lineage"), mentions("source dbt, 4 tables from target/manifest.json"), whole),
		build: func() *estate { return paymentsEstate().plan(completed, target("raw_paymnts", "raw_payments")) }},
	{rule: "BF029", name: "a bare name several tables have", want: 1,
		check: all(mentions("names target orders, which fits several tables"), mentions("orders fits 3 tables: p.int.orders, p.raw.orders, p.stg.orders")),
		build: func() *estate {
			return lineageEstate(allBuilt(1)).plan(completed, target("orders"))
		}},
	{rule: "BF029", name: "two targets, one finding", want: 1,
		check: mentions("names targets raw_paymnts, which matches no table of the lineage, and payment, which fits several tables"),
		build: func() *estate {
			e := paymentsEstate().plan(completed, target("raw_paymnts", "payment", "raw_payments"))
			for i := range e.est.Builds[2:] {
				e.est.Builds[2+i].Node = "payment"
			}
			return e
		}},
	{rule: "BF029", name: "a model id of another project, with what has its name", want: 1,
		check: all(mentions("names target model.jaffle_shop.payments, which matches no table"), mentions("tables named payments: shop.main.payments")),
		build: func() *estate { return paymentsEstate().plan(running, target("model.jaffle_shop.payments")) }},
}

var viewsTargetsQuiet = []ruleCase{
	{rule: "BF024", name: "a view made before the backfill, every table rebuilt after",
		build: func() *estate {
			return lineageEstate(map[string]float64{"p.stg.orders": -30, "p.int.orders": 2, "p.mart.revenue": 3, "p.mart.refunds": 3}).
				views("p.stg.orders").plan(completed, targets)
		}},
	{rule: "BF025", name: "what reads a view made before the backfill was rebuilt after its parents",
		build: func() *estate {
			return lineageEstate(map[string]float64{"p.stg.orders": -30, "p.int.orders": 2, "p.mart.revenue": 3, "p.mart.refunds": 3}).
				views("p.stg.orders").plan(completed, targets)
		}},
	{rule: "BF029", name: "every target names a table, however written",
		build: func() *estate {
			return paymentsEstate().plan(completed, target("source.shop.raw.payments", "raw_orders", "main.stg_payments", "shop.main.payments", "bigquery://shop/main/payments"))
		}},
	{rule: "BF029", name: "no lineage read", build: func() *estate { return newEstate().plan(completed, target("raw_paymnts")) }},
	{rule: "BF029", name: "the lineage source did not answer in full",
		build: func() *estate {
			return paymentsEstate().plan(completed, target("raw_paymnts")).degrade(srcDBT, "target/manifest.json")
		}},
	{rule: "BF029", name: "another dbt source failed",
		build: func() *estate {
			e := paymentsEstate().plan(completed, target("raw_paymnts"))
			e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: "dbt_finance", System: "dbt", Status: model.CoverageFailed, Error: "no manifest could be read"})
			return e
		}},
}
