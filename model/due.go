package model

import "time"

// DueChange is a finding's due date that moved, and why: the due policy
// changed, a waiver began or ended, or the finding was reopened. The
// history store records each one.
type DueChange struct {
	Fingerprint string    `json:"fingerprint"`
	At          time.Time `json:"at"`
	From        time.Time `json:"from,omitzero"` // zero: no due date
	To          time.Time `json:"to,omitzero"`
	FromPolicy  string    `json:"from_policy,omitempty"` // "severity high 7d"
	ToPolicy    string    `json:"to_policy,omitempty"`
	Reason      string    `json:"reason"`
}

// String reads as the reports show it: "due date moved from 2026-12-08 to
// 2026-12-04: policy changed (severity high 7d -> rule BF003 3d)".
func (c DueChange) String() string {
	s := "due date moved from " + dueDay(c.From) + " to " + dueDay(c.To) + ": " + c.Reason
	if c.FromPolicy != c.ToPolicy && c.FromPolicy != "" && c.ToPolicy != "" {
		s += " (" + c.FromPolicy + " -> " + c.ToPolicy + ")"
	}
	return s
}

func dueDay(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return t.UTC().Format("2006-01-02")
}
