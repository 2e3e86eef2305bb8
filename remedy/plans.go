package remedy

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Remedies of the governance rules on how a replay runs: each sets keys in
// the backfill's plan, and the work the plan then describes is the fix.

// UnboundedConcurrency: a cap on the replay's concurrency and a dedicated
// pool.
var UnboundedConcurrency = planEdit("Cap the replay's concurrency and give it a dedicated low-priority pool or queue, in the plan and on the scheduler's job (max_active_runs, pool).",
	func(d *doc, b *model.Backfill) {
		d.set("concurrency", "1", "a small number; 1 for stateful jobs")
		d.str("pool", b.Pool, "a dedicated low-priority pool or queue")
	})

// StatefulInParallel: a depends-on-past job replayed one interval at a
// time.
var StatefulInParallel = planEdit("Replay a depends-on-past job one interval at a time, oldest first.",
	func(d *doc, _ *model.Backfill) {
		d.set("strategy", string(model.StrategyInterval), "")
		d.set("concurrency", "1", "")
	})

// SideEffectsNotGuarded: side effects skipped for historical intervals.
var SideEffectsNotGuarded = planEdit("Make the job skip its side effects (e-mails, invoices, alerts) for historical intervals, then say so in the plan.",
	func(d *doc, _ *model.Backfill) {
		d.set("side_effects_disabled", "true", "only once the job really skips them")
	})

// AppendOnlyWrite: partition overwrite instead of appends.
var AppendOnlyWrite = planEdit("Write by partition with overwrite semantics.",
	func(d *doc, _ *model.Backfill) { d.set("write_mode", string(model.WritePartitionOverwrite), "") })

// ClassifiedWithoutEvidence: the manifest and validation evidence kept.
var ClassifiedWithoutEvidence = planEdit("Plan to keep the replay manifest and the validation evidence, and say in the decision record where they live.",
	func(d *doc, _ *model.Backfill) { d.set("keep_evidence", "true", "") })

// UndocumentedSpecialSemantics: the shortcut explained.
var UndocumentedSpecialSemantics = planEdit("Say why the replay took the shortcut and why it must not become the normal path.",
	func(d *doc, b *model.Backfill) {
		in := newDoc()
		in.str("note", b.Special.Note, "why the shortcut was needed, and why it must not become the normal path")
		d.nested("special_semantics", in, "")
	})

// NoTrialInterval: one interval run and checked before the rest.
var NoTrialInterval = planEdit("Run one interval alone and check it against the requirement before launching the rest.",
	func(d *doc, _ *model.Backfill) {
		d.set("trial_interval", "true", "once one interval was run and checked")
	})

// planEdit is a human act that sets keys in the backfill's plan.
func planEdit(what string, fill func(*doc, *model.Backfill)) Builder {
	return func(r *Remedy, f model.Finding, facts Facts) {
		var b model.Backfill
		if facts.Backfill != nil {
			b = *facts.Backfill
		}
		d := newDoc()
		fill(d, &b)
		r.Human = &Human{Step: model.StepPlan, Where: planFile(f, facts), What: what, Template: d.String()}
	}
}

// PlanFlagsNotRemoved: the plan's flags and dashboards added to its assets
// to remove.
var PlanFlagsNotRemoved = planEdit("List the flags and dashboards the plan names under assets_to_remove, so the cleanup removes them.",
	func(d *doc, b *model.Backfill) {
		items := append([]string(nil), b.AssetsToRemove...)
		for _, n := range append(append([]string(nil), b.FeatureFlags...), b.Dashboards...) {
			if !b.ListsForRemoval(n) {
				items = append(items, n)
			}
		}
		d.list("assets_to_remove", items, "their URIs, e.g. unleash://<source>/projects/<project>/features/<name>")
	})

// TargetsUnmatched: the plan's targets written as the lineage names the
// tables.
var TargetsUnmatched = planEdit("Write each target as the lineage names the table, so the tables derived from it are checked: database.schema.table, schema.table, or its dbt unique id.",
	func(d *doc, b *model.Backfill) {
		d.list("targets", b.Targets, "e.g. analytics.marts.orders, marts.orders, model.shop.orders, source.shop.raw.payments")
	})

// SchedulerMismatch: the scheduler's backfill made to match the plan, or
// the plan changed and approved again.
func SchedulerMismatch(r *Remedy, f model.Finding, facts Facts) {
	key := "the setting"
	if _, k, ok := strings.Cut(f.ArtifactURI, "#"); ok {
		key = k
	}
	r.Human = &Human{Step: model.StepPlan, Where: planFile(f, facts),
		What: fmt.Sprintf("Make the scheduler's backfill use the plan's %s: Airflow fixes a backfill's max_active_runs, reprocess behaviour and DAG settings when it is created, "+
			"so pause it (PUT /api/v2/backfills/{id}/pause), cancel it, and create it again with the plan's values; or change %s in the plan and have it approved again.", key, key)}
}

// CostEstimateLow: the plan states the dry run's figure and is approved
// at it, or the replay is narrowed until its estimate holds.
func CostEstimateLow(r *Remedy, f model.Finding, facts Facts) {
	figure := "TODO: the dry run's figure"
	for _, e := range f.Evidence {
		if v, ok := strings.CutPrefix(e, "dry run: "); ok {
			figure = v
		}
	}
	d := newDoc()
	d.str("cost_estimate", figure, "")
	r.Human = &Human{Step: model.StepPlan, Where: planFile(f, facts), Template: d.String(),
		What: "Write the warehouse's dry-run figure in cost_estimate and have the plan approved again at that cost; or narrow the range or the replay query and preview it again (bfaudit plan check --live)."}
}
