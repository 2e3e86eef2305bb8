package builtin_test

import (
	"github.com/bfaudit/bfaudit/model"
)

// Cases of BF116: the plan's cost_estimate against the warehouse's dry
// run, as `plan check --live` hands it over.
func init() {
	firing = append(firing, costFiring...)
	quiet = append(quiet, costQuiet...)
}

// estimated gives the plan a warehouse's estimate: the replay query's dry
// run processing bytes, at $6.25 per TiB.
func estimated(bytes int64, claim string) func(*model.Backfill) {
	return func(b *model.Backfill) {
		b.CostEstimate = claim
		b.Estimates = []model.Estimate{{Source: "warehouse-bq", PricePerTiB: 6.25,
			Queries: []model.QueryCost{{Query: "replay_query", Bytes: bytes, Intervals: 31}}}}
	}
}

const tib = int64(1) << 40

var costFiring = []ruleCase{
	{rule: "BF116", name: "an estimate ten times under the dry run", want: 1,
		check: all(severity(model.SeverityHigh), mentions(`estimates "$40 on-demand", but the warehouse's dry run says 64.0 TiB ($400.00 at $6.25 per TiB): 10 times as much`)),
		build: func() *estate { return newEstate().plan(estimated(64*tib, "$40 on-demand")) }},
	{rule: "BF116", name: "an estimate in bytes, three times under", want: 1,
		check: all(severity(model.SeverityMedium), mentions("3 times as much")),
		build: func() *estate { return newEstate().plan(estimated(3*tib, "1 TiB scanned")) }},
	{rule: "BF116", name: "no cost_estimate", want: 1,
		check: all(severity(model.SeverityMedium), mentions("states no cost_estimate; the warehouse's dry run says 2.0 TiB ($12.50")),
		build: func() *estate { return newEstate().plan(estimated(2*tib, "")) }},
	{rule: "BF116", name: "an estimate that states no amount", want: 1,
		check: mentions(`"cheap", which states no amount`),
		build: func() *estate { return newEstate().plan(estimated(2*tib, "cheap")) }},
	{rule: "BF116", name: "no replay query: the partitions it rewrites", want: 1,
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) {
				b.CostEstimate = "10 GB"
				b.Estimates = []model.Estimate{{Rewrites: []model.TableSpan{{Table: "p.d.t", Partitioning: "DAY", Partitions: 31, Bytes: 500e9}}}}
			})
		}},
}

var costQuiet = []ruleCase{
	{rule: "BF116", name: "an estimate the dry run bears out", build: func() *estate { return newEstate().plan(estimated(6*tib, "$40 on-demand")) }},
	{rule: "BF116", name: "no estimate: the plan was not previewed", build: func() *estate { return newEstate().plan() }},
	{rule: "BF116", name: "money without a price to compare it at",
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) {
				b.CostEstimate = "$1"
				b.Estimates = []model.Estimate{{Queries: []model.QueryCost{{Query: "replay_query", Bytes: 64 * tib}}}}
			})
		}},
	{rule: "BF116", name: "the dry run refused the query",
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) {
				b.Estimates = []model.Estimate{{Queries: []model.QueryCost{{Query: "replay_query", Error: "Not found: Table p:d.t"}}}}
			})
		}},
}
