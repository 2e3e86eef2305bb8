package builtin

import (
	"fmt"
	"strconv"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF021", Name: "lingering-replay-state", Title: "Replay consumer group, snapshot or checkpoint still there after the backfill",
		Rationale: "A streaming backfill replays a log from an old offset: its consumer group, the snapshot it seeked to and its checkpoint folders stay parked at old positions. " +
			"Left behind, a group can be resumed by mistake and replay again, a group with members is a replay consumer still running, and a group far behind the log end reprocesses everything when anything joins it.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindCheckpoint},
		Remediation: "Once the decision record holds the final range and replay id, delete the consumer group, snapshot or checkpoint folder; stop a replay consumer still running first.",
		Severity:    model.SeverityMedium, Step: model.StepRetired,
		Ladder: []rules.Rung{
			{Severity: model.SeverityLow, When: "when a consumer group sits at the log end with no members: nothing is left to replay"},
			{Severity: model.SeverityMedium, When: "when it is behind the log end, or its position is not known (a snapshot, a checkpoint folder, a group whose lag was not read)"},
			{Severity: model.SeverityHigh, When: "when it is behind the log end on customer-visible data (financial or customer), parked at least `lag` messages behind, or has members: a replay consumer still running"},
			{Severity: model.SeverityCritical, When: "when a replay consumer still runs in it on customer-visible data"},
		},
		Supersedes: []rules.Supersede{foldsUndeclared},
		Params: []rules.Param{
			{Name: "grace", Default: "7d", Description: "time after completion before replay state counts as lingering"},
			{Name: "lag", Default: "100000", Description: "messages behind the log end from which a parked group is high, whatever its data"},
		},
		Check: lingeringReplayState,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepRetired), Kind: model.KindCheckpoint,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("kafka-group")}},
	})
}

// lingeringReplayState reports checkpoint state of a completed backfill
// still held past grace (a snapshot or object whose expiry is still ahead
// goes by itself). Its severity is its ladder: how far behind the log end
// it is, whether a consumer still runs in it, and whether the data is
// customer-visible.
func lingeringReplayState(c *rules.Context) {
	grace := c.Duration("grace")
	maxLag := int64(c.Int("lag"))
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if !a.ExpiresAt.IsZero() && !c.Past(a.ExpiresAt.Time()) && a.Attr(model.AttrHolds) != "true" {
			return // it expires by itself
		}
		over, why := c.GraceOver(b, grace)
		if !over {
			return
		}
		ev := []string{stateNote(a), why}
		msg := fmt.Sprintf("%s %s of backfill %s is still there", checkpointWhat(a), nameOr(a), b.ID)
		m, _ := strconv.Atoi(a.Attr(model.AttrMembers))
		if m > 0 {
			msg += fmt.Sprintf(" with %d member(s): a replay consumer is still running", m)
			ev = append(ev, fmt.Sprintf("%d member(s) in the group", m))
		}
		lag, err := strconv.ParseInt(a.Attr(model.AttrLag), 10, 64)
		known := err == nil
		if known {
			ev = append(ev, fmt.Sprintf("lag %d messages behind the log end", lag))
			if maxLag > 0 && lag >= maxLag {
				msg += fmt.Sprintf(", parked %d messages behind the log end", lag)
			}
		}
		visible := visibleData(b)
		if visible && (m > 0 || lag > 0) {
			ev = append(ev, classifiedNote(b))
		}
		var sev model.Severity
		switch {
		case m > 0 && visible:
			sev = model.SeverityCritical
		case m > 0, known && maxLag > 0 && lag >= maxLag, known && lag > 0 && visible:
			sev = model.SeverityHigh
		case known && lag == 0 && a.Attr(model.AttrMembers) == "0":
			sev = model.SeverityLow
			ev = append(ev, "at the log end with no members: nothing is left to replay")
		default:
			sev = model.SeverityMedium
		}
		if a.Attr(model.AttrHolds) == "true" {
			ev = append(ev, "objects are held (a hold or a locked retention policy): release the hold before deleting")
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Severity: sev, Message: msg, Evidence: ev})
	})
}
