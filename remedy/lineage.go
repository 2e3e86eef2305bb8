package remedy

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// RebuildTable rebuilds a derived table from its parents. It is printed
// only: bfaudit does not run the builds; the owner runs them in order.
const RebuildTable = "rebuild_table"

// PrintOnly reports whether fix prints an action for a person to run and
// never runs it itself (a build belongs to the team's own tooling).
func PrintOnly(action string) bool { return action == RebuildTable }

// Rebuild: the command that rebuilds a finding's derived table (a
// lineage:// finding), placed at its position in the backfill's rebuild
// order so `bfaudit fix` prints the rebuilds each after its parents. The
// order and the command come from the lineage when fix hands it in; from
// a report's finding alone only the table is known.
func Rebuild(r *Remedy, f model.Finding, facts Facts) {
	table, ok := strings.CutPrefix(f.ArtifactURI, "lineage://")
	if !ok || table == "" {
		return
	}
	r.System = "lineage"
	var node model.Build
	order, of := 0, 0
	if l := facts.Lineage; l != nil {
		node, _ = l.Build(table)
		if b := facts.Backfill; b != nil {
			done, _ := b.Timeline.Completed()
			rebuild := l.Rebuild(done, l.Targets(b)...)
			of = len(rebuild)
			for i, d := range rebuild {
				if d.Table == table {
					order = i + 1
				}
			}
		}
	}
	summary := fmt.Sprintf("rebuild %s after its parents", table)
	if order > 0 {
		summary = fmt.Sprintf("rebuild %s (%d of %d in the rebuild order)", table, order, of)
	}
	rebuild := SystemNamed(node.System).Rebuild
	switch {
	case rebuild != nil && node.Node != "":
		r.Actions = append(r.Actions, Action{Name: RebuildTable, Step: model.StepVerified, Summary: summary, Order: order, Resolves: true,
			Shell: rebuild(node.Node)})
	case node.Node != "":
		r.Human = &Human{Step: model.StepVerified, What: fmt.Sprintf("%s: re-run %s (%s), which last wrote it.", capitalize(summary), node.Node, orSystem(node.System))}
	default:
		r.Human = &Human{Step: model.StepVerified, What: capitalize(summary) + ": re-run the job or model that writes it, once every table it reads is rebuilt."}
	}
	r.Notes = append(r.Notes, "Rebuild in the order the finding gives: a table rebuilt before its parent reads the parent's old numbers.")
}

func orSystem(s string) string {
	if s == "" {
		return "its system"
	}
	return s
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// ExampleRebuild is a finding on a dbt model derived from BF-1234's
// target, with the lineage fix hands in.
func ExampleRebuild(rule string) Example {
	b := exampleBackfill()
	b.Targets = []string{"bigquery://shop-analytics/revenue/refunds"}
	edges := []model.Edge{
		{Parent: "shop-analytics.revenue.refunds", Child: "shop-analytics.marts.daily_revenue", System: "dbt", Source: "dbt", Scope: "target/manifest.json"},
		{Parent: "shop-analytics.marts.daily_revenue", Child: "shop-analytics.marts.revenue_by_region", System: "dbt", Source: "dbt", Scope: "target/manifest.json"},
	}
	builds := []model.Build{
		{Table: "shop-analytics.marts.daily_revenue", Node: "daily_revenue", System: "dbt", Source: "dbt"},
		{Table: "shop-analytics.marts.revenue_by_region", Node: "revenue_by_region", System: "dbt", Source: "dbt"},
	}
	uri := "lineage://shop-analytics.marts.revenue_by_region"
	f := model.Finding{RuleID: rule, BackfillID: b.ID, Key: model.ParseID(b.ID), ArtifactURI: uri, Source: "dbt", Scope: "target/manifest.json"}
	f.Fingerprint = model.Fingerprint(rule, f.Key, uri)
	return Example{Finding: f, Facts: Facts{Backfill: b, Lineage: correlate.NewLineage(edges, builds), RecordsDir: "records", PlansDir: "plans"}}
}
