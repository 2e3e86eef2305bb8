package remedy

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
)

// The remedy of each built-in rule. Rules about an artifact remove it (or
// pause it first, for a job still scheduled); rules about a plan, a record
// or the config are human acts with a filled template.
func init() {
	byRule = map[string]builder{
		"BF001": expiredJob,
		"BF002": func(r *Remedy, _ model.Finding, facts Facts) {
			removeArtifact(r, facts, model.StepRetired)
			runbookNote(r)
		},
		"BF003": func(r *Remedy, _ model.Finding, facts Facts) { removeArtifact(r, facts, model.StepAccessRevoked) },
		"BF004": func(r *Remedy, _ model.Finding, facts Facts) { removeArtifact(r, facts, model.StepAccessRevoked) },
		"BF005": func(r *Remedy, _ model.Finding, facts Facts) { removeArtifact(r, facts, model.StepRetired) },
		"BF006": func(r *Remedy, _ model.Finding, facts Facts) { removeArtifact(r, facts, model.StepRetired) },
		"BF007": func(r *Remedy, _ model.Finding, facts Facts) { removeArtifact(r, facts, model.StepNormalized) },
		"BF008": missingRecord,
		"BF009": incompleteRecord,
		"BF010": outOfOrder,
		"BF011": orphan,
		"BF012": unowned,
		"BF013": unverifiedRange,
		"BF014": undeclared,
		"BF015": overdue,
		"BF016": func(r *Remedy, _ model.Finding, facts Facts) { removeArtifact(r, facts, model.StepNormalized) },
		"BF101": planMissingCleanup,
		"BF102": notTimeBound,
		"BF103": planEdit("Cap the replay's concurrency and give it a dedicated low-priority pool or queue, in the plan and on the scheduler's job (max_active_runs, pool).",
			func(d *doc, b *model.Backfill) {
				d.set("concurrency", "1", "a small number; 1 for stateful jobs")
				d.str("pool", b.Pool, "a dedicated low-priority pool or queue")
			}),
		"BF104": planEdit("Replay a depends-on-past job one interval at a time, oldest first.",
			func(d *doc, _ *model.Backfill) {
				d.set("strategy", string(model.StrategyInterval), "")
				d.set("concurrency", "1", "")
			}),
		"BF105": planEdit("Make the job skip its side effects (e-mails, invoices, alerts) for historical intervals, then say so in the plan.",
			func(d *doc, _ *model.Backfill) {
				d.set("side_effects_disabled", "true", "only once the job really skips them")
			}),
		"BF106": catchupRisk,
		"BF107": planEdit("Write by partition with overwrite semantics.",
			func(d *doc, _ *model.Backfill) { d.set("write_mode", string(model.WritePartitionOverwrite), "") }),
		"BF108": planEdit("Plan to keep the replay manifest and the validation evidence, and say in the decision record where they live.",
			func(d *doc, _ *model.Backfill) { d.set("keep_evidence", "true", "") }),
		"BF109": planEdit("Say why the replay took the shortcut and why it must not become the normal path.",
			func(d *doc, b *model.Backfill) {
				in := newDoc()
				in.str("note", b.Special.Note, "why the shortcut was needed, and why it must not become the normal path")
				d.nested("special_semantics", in, "")
			}),
		"BF110": planEdit("Run one interval alone and check it against the requirement before launching the rest.",
			func(d *doc, _ *model.Backfill) {
				d.set("trial_interval", "true", "once one interval was run and checked")
			}),
		"BF111": consumersNotInformed,
		"BF112": silenceOutlivesPlan,
		"BF900": waiverEdit("Fix what the waiver hid and delete the waiver, or renew it with a new reason, approver and expiry."),
		"BF901": waiverEdit("Delete the waiver, or correct its fingerprint, rule or selector."),
		"BF902": func(r *Remedy, f model.Finding, _ Facts) {
			r.Human = &Human{Step: model.StepPlan, Where: locationOr(f, "the config file, rules.custom"),
				What: "Fix the user rule's expression: guard optional values with has() and map keys with `key in map`."}
		},
	}
}

// removal fills the commands that remove an artifact from its system.
func removal(r *Remedy, a *model.Artifact) {
	switch systemOf(a) {
	case "postgres":
		postgresRemoval(r, a)
	case "bigquery":
		bigqueryRemoval(r, a)
	case "gcpiam":
		gcpiamRemoval(r, a)
	case "pubsub":
		pubsubRemoval(r, a)
	case "rabbitmq":
		rabbitmqRemoval(r, a)
	case "airflow":
		airflowRemoval(r, a)
	case "kubernetes":
		kubernetesRemoval(r, a)
	case "alertmanager":
		silenceRemoval(r, a)
	}
}

// removeArtifact removes the finding's artifact; for a system bfaudit has
// no command for (an inventory file, a Prometheus rule file), it says what
// to remove and where.
func removeArtifact(r *Remedy, facts Facts, step model.Step) {
	a := facts.Artifact
	if a == nil {
		return
	}
	removal(r, a)
	if len(r.Actions) == 0 {
		r.Human = manualRemoval(a, step)
	}
}

// manualRemoval says what to remove by hand.
func manualRemoval(a *model.Artifact, step model.Step) *Human {
	if systemOf(a) == "prometheus" {
		where := a.Attr("file")
		if obj := a.Attr("prometheusrule"); obj != "" {
			where = "PrometheusRule " + obj
		}
		return &Human{Step: step, Where: where,
			What: fmt.Sprintf("Delete the rule %s from group %s of %s and reload Prometheus (POST /-/reload, or let the operator pick the PrometheusRule up).",
				nameOr(a), orDash(a.Attr("group")), orDash(where))}
	}
	verb := "Delete"
	if a.Kind == model.KindFeatureFlag {
		verb = "Turn off and delete"
	}
	return &Human{Step: step, Where: a.URI,
		What: fmt.Sprintf("%s the %s %s in %s: bfaudit has no command for this system.", verb, a.Kind, nameOr(a), orDash(systemOf(a)))}
}

// expiredJob: a job still scheduled is paused now (nothing verifies a
// range the job may still write to) and deleted once the record is
// archived; a finished run object is deleted.
func expiredJob(r *Remedy, _ model.Finding, facts Facts) {
	a := facts.Artifact
	if a == nil {
		return
	}
	if a.Kind == model.KindSchedulerJob && a.State != model.StatePaused && a.State != model.StateDisabled {
		switch systemOf(a) {
		case "airflow":
			airflowPause(r, a)
		case "kubernetes":
			kubernetesPause(r, a)
		}
	}
	removeArtifact(r, facts, model.StepRetired)
	if a.Kind == model.KindSchedulerJob {
		runbookNote(r)
	}
}

func runbookNote(r *Remedy) {
	r.Notes = append(r.Notes, "if the job is needed for future recovery, convert it into an owned, tested runbook entry instead of deleting it, and set its runbook attribute")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// locationOr is the file a finding points at, or a fallback.
func locationOr(f model.Finding, fallback string) string {
	if f.Location != nil && f.Location.Path != "" {
		return f.Location.String()
	}
	return fallback
}
