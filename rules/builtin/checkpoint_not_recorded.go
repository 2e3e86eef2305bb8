package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF020", Name: "checkpoint-not-recorded", Title: "Checkpoint state held, and the decision record lacks its final range and replay id",
		Rationale: "Checkpoint state (consumer group offsets, checkpoint objects, snapshots) is the only account of how far a replay got. " +
			"Before it is deleted, its final processed range and replay id go into the decision record; deleted first, nobody can say what was replayed.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindCheckpoint},
		Remediation: "Write the checkpoint's final_range, replay_id and location into the decision record's checkpoint section; then the state can be deleted.",
		Severity:    model.SeverityMedium, Step: model.StepArchived,
		Params: []rules.Param{{Name: "grace", Default: "7d", Description: "time after completion before held checkpoint state must be recorded"}},
		Check:  checkpointNotRecorded,
		Remedy: &remedy.Recipe{Build: remedy.RecordCheckpoint, Kind: model.KindCheckpoint,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("kafka-group")}},
	})
}

// checkpointNotRecorded reports each checkpoint of a completed backfill
// still held past grace while the decision record does not hold the
// checkpoint's final range and replay id. Its step (archived) comes before
// the state's removal (retired): the range is written down first.
func checkpointNotRecorded(c *rules.Context) {
	grace := c.Duration("grace")
	recordsUnread := len(c.Index.RecordsUnread()) > 0
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		r := c.Index.Record(b.Key)
		if r != nil && r.HoldsCheckpoint() {
			return
		}
		over, why := c.GraceOver(b, grace)
		if !over {
			return
		}
		msg, lacks := "the decision record does not say its final range and replay id", "record lacks checkpoint.final_range and checkpoint.replay_id"
		if r == nil && recordsUnread {
			// Still reported, so that it is not resolved while the record
			// may be unread; it says only what is known.
			msg, lacks = "no decision record saying its final range and replay id was read", "a unit that reads decision records did not answer: the record may hold them"
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a,
			Message:  fmt.Sprintf("%s %s of backfill %s is held, and %s", checkpointWhat(a), nameOr(a), b.ID, msg),
			Evidence: []string{stateNote(a), why, lacks}})
	})
}

// checkpointWhat names a checkpoint by its type.
func checkpointWhat(a *model.Artifact) string {
	switch a.Attr(model.AttrCheckpointType) {
	case "consumer_group":
		return "consumer group"
	case "object":
		return "checkpoint folder"
	case "snapshot":
		return "snapshot"
	}
	return "checkpoint"
}
