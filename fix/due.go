package fix

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/reports/due"
)

// Statuses of an item held by `fix --due` (see DueGate).
const (
	StatusNotDue       = "not due"       // no due date, or not reached
	StatusNotAnnounced = "not announced" // the owner was not told notice_days before
	StatusWaived       = "waived"        // waived, or accepted on GitHub
)

// Hold keeps one item from running whatever its step, as Waits does, for a
// reason of its own finding: under --due, a finding not yet due, or whose
// owner was not told long enough before, or that is waived.
type Hold struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// DueGate is what `fix --due` acts by: a command runs only for a finding
// past its due date whose owner was told of it at least NoticeDays before
// Now. The findings' DueAt must be the history store's, as of Now
// (history.Store.Due): without the store a due date moves with every run
// and proves nothing.
type DueGate struct {
	Now        time.Time
	NoticeDays int
	// Notified is when each finding's owner was first told of it, by
	// fingerprint (history.Store.FirstNotified); a finding missing from it
	// was never announced.
	Notified map[string]time.Time
}

// waivedHold is the hold of every item of a waived or accepted finding, which
// --due lists (a plan without --due leaves them out).
func waivedHold(f model.Finding) *Hold {
	if f.Waiver == nil {
		return &Hold{Status: StatusWaived, Reason: "accepted on GitHub (the history store's last record)"}
	}
	w := f.Waiver
	reason := "waived"
	if w.Origin != "" {
		reason += " (" + w.Origin + ")"
	}
	if w.Reason != "" {
		reason += ": " + w.Reason
	}
	if !w.Expires.IsZero() {
		reason += ", until " + due.Date(w.Expires)
	}
	return &Hold{Status: StatusWaived, Reason: reason}
}

// hold says why a finding's commands may not run yet under --due; nil
// when they may: it is due and its owner was told in time.
func (g *DueGate) hold(f model.Finding) *Hold {
	var why []string
	status := ""
	switch {
	case f.DueAt.IsZero():
		status = StatusNotDue
		why = append(why, "no due date (the due policy gives "+f.RuleID+" "+f.Severity.String()+" none)")
	case g.Now.Before(f.DueAt):
		status = StatusNotDue
		why = append(why, fmt.Sprintf("%s (%s)", due.Left(f, g.Now), due.Date(f.DueAt)))
	}
	notice := time.Duration(g.NoticeDays) * due.Day
	at, told := g.Notified[f.Fingerprint]
	switch {
	case !told:
		status = cmp.Or(status, StatusNotAnnounced)
		why = append(why, "owner never notified (no notice in the history store)")
	case at.After(g.Now.Add(-notice)):
		status = cmp.Or(status, StatusNotAnnounced)
		why = append(why, fmt.Sprintf("owner notified only %s ago (%s); notice_days is %d: acts from %s",
			daysAgo(g.Now.Sub(at)), due.Date(at), g.NoticeDays, due.Date(at.Add(notice))))
	}
	if status == "" {
		return nil
	}
	return &Hold{Status: status, Reason: strings.Join(why, "; ")}
}

// held reports whether --due holds this item back: commands --apply would
// take. Human acts and print-only commands are never taken, so they are
// left as they are.
func held(it Item) bool {
	return it.Action != nil && !remedy.PrintOnly(it.Action.Name)
}

func daysAgo(d time.Duration) string {
	if d < due.Day {
		return "under 1d"
	}
	return fmt.Sprintf("%dd", d/due.Day)
}
