package correlate

import (
	"slices"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// raw.orders -> stg_orders (a view) -> orders -> customers, and
// raw.payments -> customers, as dbt names them.
func shopLineage(built map[string]time.Time) *Lineage {
	e := func(p, c string) model.Edge { return model.Edge{Parent: p, Child: c, System: "dbt"} }
	edges := []model.Edge{e("db.raw.orders", "db.stg.stg_orders"), e("db.stg.stg_orders", "db.main.orders"),
		e("db.main.orders", "db.main.customers"), e("db.raw.payments", "db.main.customers")}
	var builds []model.Build
	for _, b := range []model.Build{
		{Table: "db.raw.orders", Node: "source:raw.orders", NodeID: "source.shop.raw.orders"},
		{Table: "db.raw.payments", Node: "raw_payments", NodeID: "seed.shop.raw_payments"},
		{Table: "db.stg.stg_orders", Node: "stg_orders", NodeID: "model.shop.stg_orders", View: true},
		{Table: "db.main.orders", Node: "orders", NodeID: "model.shop.orders"},
		{Table: "db.main.customers", Node: "customers", NodeID: "model.shop.customers"},
	} {
		b.System, b.At = "dbt", built[b.Table]
		builds = append(builds, b)
	}
	return NewLineage(edges, builds)
}

func TestTargetsMatchAsUsersWriteThem(t *testing.T) {
	l := shopLineage(nil)
	for target, want := range map[string][]string{
		"db.raw.orders": {"db.raw.orders"}, "raw.orders": {"db.raw.orders"}, `"db"."raw"."orders"`: {"db.raw.orders"},
		"source.shop.raw.orders": {"db.raw.orders"}, "seed.shop.raw_payments": {"db.raw.payments"}, "model.shop.orders": {"db.main.orders"},
		"raw_payments": {"db.raw.payments"}, // the seed's dbt name, not its table's
		"customers":    {"db.main.customers"},
		"orders":       nil, // raw.orders and main.orders: ambiguous
		"raw_paymnts":  nil, "model.other.orders": nil,
	} {
		if got := l.Tables(target); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", target, got, want)
		}
	}
	if m := l.Match("orders"); !slices.Equal(m.Candidates, []string{"db.main.orders", "db.raw.orders"}) {
		t.Errorf("orders: candidates %v", m.Candidates)
	}
}

// A view is never in the rebuild order (so fix prints no dbt build for
// it), and staleness passes through it.
func TestRebuildPassesThroughViews(t *testing.T) {
	done := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	old, later := done.Add(-time.Hour), done.Add(time.Hour)
	for _, c := range []struct {
		name  string
		built map[string]time.Time
		want  []string
	}{
		{"nothing rebuilt", map[string]time.Time{"db.stg.stg_orders": old, "db.main.orders": old, "db.main.customers": old},
			[]string{"db.main.orders", "db.main.customers"}},
		{"the tables rebuilt, the view made before", map[string]time.Time{"db.stg.stg_orders": old, "db.main.orders": later, "db.main.customers": later.Add(time.Minute)}, nil},
		{"customers before orders", map[string]time.Time{"db.stg.stg_orders": later, "db.main.orders": later.Add(time.Minute), "db.main.customers": later},
			[]string{"db.main.customers"}},
	} {
		var got []string
		for _, d := range shopLineage(c.built).Rebuild(done, "raw.orders") {
			got = append(got, d.Table)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: rebuild %v, want %v", c.name, got, c.want)
		}
	}
	var parents []string
	for _, e := range shopLineage(nil).DataParents("db.main.orders") {
		parents = append(parents, e.Parent)
	}
	if !slices.Equal(parents, []string{"db.raw.orders"}) {
		t.Errorf("data parents of orders: %v, want the table behind the view", parents)
	}
}
