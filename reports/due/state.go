package due

import (
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// State is what the history store keeps about a finding's due date.
type State struct {
	// Since is when the clock started: the first sighting, or the
	// reopening, or the end of a waiver.
	Since time.Time
	// DueAt is Since plus Rule's period; zero when the rule has none.
	DueAt time.Time
	// Rule is the policy the due date was computed from.
	Rule Rule
	// Waived says the finding was waived when last seen: while it is, the
	// report shows no due date, and the clock restarts when the waiver ends.
	Waived bool
}

// Reasons a due date moves.
const (
	ReasonPolicy      = "policy changed"
	ReasonWaived      = "waived"
	ReasonWaiverEnded = "waiver ended"
	ReasonReopened    = "reopened"
)

// Change is a due date that moved, as the store records it.
type Change = model.DueChange

// Date writes a due date as a day, or "none".
func Date(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return t.UTC().Format("2006-01-02")
}

// Start is the state of a finding first seen at first under rule.
func Start(first time.Time, f model.Finding, rule Rule) State {
	return State{Since: first, DueAt: dueAt(first, rule), Rule: rule, Waived: f.Waived()}
}

// Next carries a stored state to this run, at now, for finding f under
// rule: the due date stays as stored, except that
//   - a finding reopened (resolved, then seen again) starts a new clock;
//   - a waiver that ended starts a new clock (while waived, nothing moves);
//   - a different period (the policy or the finding's severity changed)
//     recomputes the due date from Since.
//
// Each move is returned as a Change; nil when nothing moved.
func Next(prev State, reopened bool, f model.Finding, rule Rule, now time.Time) (State, *Change) {
	next := prev
	next.Waived = f.Waived()
	var reason string
	switch {
	case reopened:
		next.Since, next.Rule, reason = now, rule, ReasonReopened
	case f.Waived() && !prev.Waived:
		// Kept as it was, so a waiver lifted the same day changes nothing;
		// the change is recorded for the audit trail.
		return next, &Change{Fingerprint: f.Fingerprint, At: now, From: prev.DueAt, FromPolicy: prev.Rule.String(),
			ToPolicy: prev.Rule.String(), Reason: ReasonWaived}
	case f.Waived():
		return next, nil
	case prev.Waived:
		next.Since, next.Rule, reason = now, rule, ReasonWaiverEnded
	case rule.Period != prev.Rule.Period:
		next.Rule, reason = rule, ReasonPolicy
	default:
		next.Rule = rule // same period: the due date stays; the text may name a new source
		return next, nil
	}
	next.DueAt = dueAt(next.Since, next.Rule)
	if next.DueAt.Equal(prev.DueAt) && reason != ReasonPolicy {
		return next, nil
	}
	return next, &Change{Fingerprint: f.Fingerprint, At: now, From: prev.DueAt, To: next.DueAt,
		FromPolicy: prev.Rule.String(), ToPolicy: next.Rule.String(), Reason: reason}
}

func dueAt(since time.Time, rule Rule) time.Time {
	if rule.None() || since.IsZero() {
		return time.Time{}
	}
	return since.Add(rule.Period).UTC()
}

// Apply sets f's DueAt and Overdue from its state at now: a waived finding
// shows no due date; a finding is overdue from its due date on.
func Apply(f *model.Finding, s State, now time.Time) {
	f.DueAt, f.Overdue = time.Time{}, false
	if f.Waived() || s.DueAt.IsZero() {
		return
	}
	f.DueAt = s.DueAt
	f.Overdue = !now.Before(s.DueAt)
}

// Stamp sets every finding's due date without a history store: the clock
// starts at the finding's FirstSeen, or at the report's time when unknown,
// so without the store the due date moves with every run
// (docs/reports/due.md).
func Stamp(r *model.Report, p Policy) {
	classes := Classes(r)
	for i := range r.Findings {
		f := &r.Findings[i]
		first := f.FirstSeen
		if first.IsZero() {
			first = r.Now
		}
		Apply(f, Start(first, *f, p.For(*f, classes[model.ParseID(f.BackfillID)])), r.Now)
	}
}

// ClearWaived takes the due date off every waived finding: a sink (the
// GitHub sync) may waive findings after the due dates were set.
func ClearWaived(r *model.Report) {
	for i := range r.Findings {
		if f := &r.Findings[i]; f.Waived() {
			f.DueAt, f.Overdue = time.Time{}, false
		}
	}
}
