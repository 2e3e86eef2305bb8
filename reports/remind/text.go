package remind

import (
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
)

// reminderText is the reminder, the same on GitHub and Slack.
func reminderText(f model.Finding, owner string, now time.Time) string {
	return fmt.Sprintf("Reminder: %s (%s) on backfill %s is due %s (%s). Close it, or waive it with a reason, before then; owner: %s.",
		f.RuleID, f.Title, f.BackfillID, due.Date(f.DueAt), due.Left(f, now), owner)
}

// escalationText tells the team the finding is still open past due.
func escalationText(f model.Finding, owner, team, lead string, now time.Time) string {
	return fmt.Sprintf("Escalation to team %s (lead %s): %s (%s) on backfill %s, owned by %s, was due %s and is still open (%s).",
		team, lead, f.RuleID, f.Title, f.BackfillID, owner, due.Date(f.DueAt), due.Left(f, now))
}
