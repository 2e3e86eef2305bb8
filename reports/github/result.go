package github

import (
	"slices"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Result is what one Sync did. In a dry run the counts say what would have
// been done and Writes is zero.
type Result struct {
	Created   int `json:"created"`
	Edited    int `json:"edited"` // title, body or assignees changed, state unchanged
	Closed    int `json:"closed"`
	Reopened  int `json:"reopened"`
	Commented int `json:"commented"`
	Unchanged int `json:"unchanged"` // existing issues that needed no write

	// Reads and Writes count HTTP requests sent, retries included.
	Reads           int           `json:"reads"`
	Writes          int           `json:"writes"`
	RateLimitWaited time.Duration `json:"rate_limit_waited"`

	// IssueURLs maps a backfill id, as the report spells it, to its issue.
	IssueURLs map[string]string `json:"issue_urls,omitempty"`
	// Waived lists the backfills whose findings a person accepted by
	// closing the issue with the waiver label.
	Waived []Waived `json:"waived,omitempty"`
	// Duplicates are further issues carrying the marker of a backfill that
	// already has one; they are left alone for a person to close.
	Duplicates []string `json:"duplicates,omitempty"`
	// Warnings are problems that did not stop the run (an assignee GitHub
	// refused, for instance).
	Warnings []string `json:"warnings,omitempty"`
	// NotSynced lists the backfills (as the report spells them) whose
	// issue could not be brought in step: their sync failed, or the run
	// stopped before them (a refused token, an outage, a rate limit past
	// github.rate_limit_wait). Their issues are as the last run left them.
	NotSynced []string `json:"not_synced,omitempty"`
}

// Waived is a GitHub waiver: the findings (by fingerprint) a person
// accepted on a backfill's issue by closing it with the waiver label.
type Waived struct {
	BackfillID string `json:"backfill_id"`
	IssueURL   string `json:"issue_url"`
	Reason     string `json:"reason"`
	// Approver is the GitHub login that applied the label, Accepted when,
	// and Expires when the acceptance stops waiving (github.accept_days).
	Approver     string    `json:"approver"`
	Accepted     time.Time `json:"accepted"`
	Expires      time.Time `json:"expires"`
	Fingerprints []string  `json:"fingerprints"`
}

// Apply copies the result into the report: each backfill's IssueURL, and a
// Waiver{Origin: "github", Approver: login, Expires: ...} on every finding
// accepted on GitHub that no config waiver already covers. Sync itself never changes the report; the
// caller recomputes the summary after Apply.
func (res Result) Apply(r *model.Report) {
	for i := range r.Backfills {
		b := &r.Backfills[i]
		for id, u := range res.IssueURLs {
			if model.SameID(id, b.Backfill.ID) {
				b.IssueURL = u
				break
			}
		}
	}
	for _, w := range res.Waived {
		for i := range r.Findings {
			f := &r.Findings[i]
			if f.Waiver == nil && model.SameID(f.BackfillID, w.BackfillID) && slices.Contains(w.Fingerprints, f.Fingerprint) {
				f.Waiver = &model.Waiver{Origin: "github", Reason: w.Reason, Approver: w.Approver, Expires: w.Expires}
			}
		}
	}
}
