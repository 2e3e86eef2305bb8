package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF027", Name: "unplanned-backfill", Title: "Backfill run by the scheduler that no plan or record describes",
		Rationale: "A backfill should start from a written plan: the range, the owner, the concurrency cap, the side effects to disable and the cleanup" +
			"; the decision record is how the organisation knows what was replayed and why" +
			". A replay the scheduler runs that nobody planned has none of that.",
		Practice:    rules.PracticePlan,
		Remediation: "Find who started it; pause it until a plan with range, owner, concurrency, pool and side effects is written and approved, or write that plan now.",
		Severity:    model.SeverityMedium, Ladder: upRung(model.SeverityMedium, "when it is paused or queued", "while it runs"),
		Step:   model.StepPlan,
		Check:  unplannedBackfill,
		Remedy: &remedy.Recipe{Build: remedy.MissingPlan, Examples: []remedy.ExampleOf{remedy.ExampleNoRecord}},
	})
}

// unplannedBackfill flags scheduler backfill objects that no plan or
// record describes, and backfill ids found on backfill runs (an Airflow
// run of type backfill, a Kubernetes Job) that nothing describes.
func unplannedBackfill(c *rules.Context) {
	recordsUnread := len(c.Index.RecordsUnread()) > 0
	for _, id := range c.Index.IDs {
		b := c.Index.Backfills[id]
		if b.Origin != model.OriginScheduler || c.Index.Record(id) != nil || recordsUnread {
			// A decision record in a unit that did not answer may describe
			// it: "nothing describes it" cannot be said this run. The
			// finding is about the whole backfill, so a history store
			// carries it as last seen.
			continue
		}
		run := b.Status == model.StatusRunning
		ev := []string{fmt.Sprintf("%s reports it %s", sourceName(b), b.Status)}
		for _, v := range b.Scheduled {
			ev = append(ev, viewText(v))
			run = run || v.Running
		}
		ev = append(ev, "no plan file and no decision record names "+b.ID)
		c.Report(rules.Issue{Backfill: b, Severity: up(run, model.SeverityMedium), Evidence: ev,
			Message: fmt.Sprintf("backfill %s %s in the scheduler, but no plan or decision record describes it", b.ID, runningText(run))})
	}
	for _, id := range c.Index.Unknown {
		var first *model.Artifact
		active := false
		for a := range c.ArtifactsOf(id) {
			if !backfillRun(a) || !a.State.Live() {
				continue
			}
			active = active || a.State == model.StateActive
			if first == nil || a.URI < first.URI {
				first = a
			}
		}
		if first == nil {
			continue
		}
		c.Report(rules.Issue{Artifact: first, Severity: up(active, model.SeverityMedium),
			Evidence: []string{stateNote(first), fmt.Sprintf("tied to %s by %s", first.BackfillID, first.Correlation), "no plan file and no decision record names " + first.BackfillID},
			Message:  fmt.Sprintf("backfill %s %s in the scheduler (%s), but no plan or decision record describes it", first.BackfillID, runningText(active), nameOr(first))})
	}
}

// backfillRun reports whether an artifact is a run of a backfill: a run
// its collector typed backfill (an Airflow backfill run; every Kubernetes
// Job the kubernetes collector reads, since it reads only labelled ones).
func backfillRun(a *model.Artifact) bool {
	if a.Kind != model.KindJobRun {
		return false
	}
	return a.Attr(model.AttrRunType) == "backfill"
}

func runningText(run bool) string {
	if run {
		return "is running"
	}
	return "ran"
}

func sourceName(b *model.Backfill) string {
	if b.Source.Source != "" {
		return "source " + fmt.Sprintf("%q", b.Source.Source)
	}
	return "the scheduler"
}

// viewText says what a scheduler reports of its backfill object.
func viewText(v model.SchedulerView) string {
	s := v.Object
	if s == "" {
		s = v.Source.String()
	}
	s += fmt.Sprintf(": max_active_runs %d", v.MaxActiveRuns)
	if v.Pool != "" {
		s += ", pool " + v.Pool
	}
	if v.DependsOnPast != nil {
		s += fmt.Sprintf(", depends_on_past %t", *v.DependsOnPast)
	}
	if v.ReprocessBehavior != "" {
		s += ", reprocess_behavior " + v.ReprocessBehavior
	}
	switch {
	case v.Running:
		s += ", running"
	case v.Paused:
		s += ", paused"
	}
	return s
}
