package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF010", Name: "cleanup-out-of-order", Title: "Backfill cleanup done out of order",
		Rationale: "Cleanup closes the loop in order: verify, normalize, revoke temporary access, archive the decision record, and only then delete temporary tables or job definitions. " +
			"Deleting tables or jobs before the record is archived loses the evidence the record needs; leaving credentials live after the tables are gone keeps access that no longer has a purpose.",
		Practice:    rules.PracticeCloseTheLoop,
		Remediation: "Archive the decision record now with what is left (purpose, range, job id, validation query, approving owner, final data location); revoke the remaining credentials and grants; follow the lifecycle order next time.",
		Severity:    model.SeverityMedium, Step: model.StepArchived,
		Check: cleanupOutOfOrder,
		Remedy: &remedy.Recipe{Build: remedy.OutOfOrder,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("bq-table-deleted"), remedy.ExampleOn("gcp-key")}},
	})
}

// cleanupOutOfOrder looks for two orderings the practice forbids. Deletion is
// only ever taken from a source that answered for the artifact's scope and
// reported it deleted: absence, or a source that failed, proves nothing.
func cleanupOutOfOrder(c *rules.Context) {
	recordsUnread := len(c.Index.RecordsUnread()) > 0
	for _, id := range c.Index.IDs {
		b := c.Index.Backfills[id]
		rec := c.Index.Record(id)
		archived := rec != nil && rec.Archived()
		var deleted, tables, live []*model.Artifact
		tablesSeen := 0
		for a := range c.ArtifactsOf(id) {
			retirable := a.Kind == model.KindTable || a.Kind == model.KindSchedulerJob
			if a.Kind == model.KindTable {
				tablesSeen++
			}
			switch {
			case a.State == model.StateDeleted && c.Index.Answered(a.Source, a.Scope):
				if retirable {
					deleted = append(deleted, a)
				}
				if a.Kind == model.KindTable {
					tables = append(tables, a)
				}
			case (a.Kind == model.KindCredential || a.Kind == model.KindGrant) && a.State.Live():
				live = append(live, a)
			}
		}
		for _, a := range deleted {
			gone := a.ModifiedAt
			switch {
			case rec == nil && recordsUnread:
				// Its record may be in a unit that did not answer: still
				// reported, so that it is not resolved, saying only what is known.
				c.Report(rules.Issue{Backfill: b, Artifact: a,
					Message:  fmt.Sprintf("%s %s was deleted, and no archived decision record of %s was read", a.Kind, nameOr(a), b.ID),
					Evidence: []string{stateNote(a), "a unit that reads decision records did not answer: the record may be there"}})
			case !archived:
				c.Report(rules.Issue{Backfill: b, Artifact: a,
					Message:  fmt.Sprintf("%s %s was deleted before the decision record of %s was archived", a.Kind, nameOr(a), b.ID),
					Evidence: []string{stateNote(a), recordState(rec)}})
			case !gone.IsZero() && gone.Time().Before(rec.ArchivedAt):
				c.Report(rules.Issue{Backfill: b, Artifact: a,
					Message: fmt.Sprintf("%s %s was deleted %s, before the decision record was archived %s", a.Kind, nameOr(a), day(gone), day(rec.ArchivedAt)),
					Evidence: []string{stateNote(a), fmt.Sprintf("deleted %s", gone.Time().UTC().Format("2006-01-02 15:04 MST")),
						fmt.Sprintf("record archived %s", rec.ArchivedAt.UTC().Format("2006-01-02 15:04 MST"))}})
			}
		}
		// Every table of the backfill was seen, and seen deleted.
		if tablesSeen > 0 && len(tables) == tablesSeen {
			for _, a := range live {
				c.Report(rules.Issue{Backfill: b, Artifact: a,
					Message:  fmt.Sprintf("%s %s is still live although the tables of %s are gone", a.Kind, nameOr(a), b.ID),
					Evidence: []string{stateNote(a), fmt.Sprintf("%d table(s) of %s reported deleted", len(tables), b.ID)}})
			}
		}
		// The plan itself says the job definitions were retired before the
		// record was archived.
		if !b.Timeline.RetiredAt.IsZero() && archived && b.Timeline.RetiredAt.Before(rec.ArchivedAt) {
			c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "timeline.retired_at"),
				Message: fmt.Sprintf("%s was retired %s, before its decision record was archived %s", b.ID, day(b.Timeline.RetiredAt), day(rec.ArchivedAt)),
				Evidence: []string{"retired_at " + b.Timeline.RetiredAt.UTC().Format("2006-01-02 15:04 MST"),
					"archived_at " + rec.ArchivedAt.UTC().Format("2006-01-02 15:04 MST")}})
		}
	}
}

func recordState(r *model.DecisionRecord) string {
	if r == nil {
		return "no decision record"
	}
	return fmt.Sprintf("decision record %s is not archived", r.Source)
}
