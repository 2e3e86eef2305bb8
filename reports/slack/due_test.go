package slack

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// The owner's message says, per item, how long is left before its due
// date, or by how much it is overdue (in bold); a waived item says neither.
func TestOwnerMessageShowsTimeLeft(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	r := &model.Report{Now: now,
		Backfills: []model.BackfillReport{{Backfill: &model.Backfill{ID: "BF-1", Owner: "alice"}, Known: true}},
		Findings: []model.Finding{
			{RuleID: "BF003", Severity: model.SeverityHigh, Title: "Grant", BackfillID: "BF-1", Owner: "alice", Fingerprint: "f1",
				DueAt: now.Add(-2 * 24 * time.Hour), Overdue: true},
			{RuleID: "BF008", Severity: model.SeverityMedium, Title: "No record", BackfillID: "BF-1", Owner: "alice", Fingerprint: "f2",
				DueAt: now.Add(3 * 24 * time.Hour)},
		}}
	d := newDigest(r, "2026-11-30", changes{}, 0)
	dm := messagesText(directMessages(d, ownerItems{owner: "alice", findings: r.Findings}))
	for _, want := range []string{"Grant · *overdue by 2d*", "No record · due in 3d (2026-12-03)"} {
		if !strings.Contains(dm, want) {
			t.Errorf("owner message lacks %q:\n%s", want, dm)
		}
	}
}
