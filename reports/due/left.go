package due

import (
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Left says how much time is left on a finding at now: "due in 3d",
// "due in 5h", "overdue by 2d"; "" when it has no due date.
func Left(f model.Finding, now time.Time) string {
	if f.DueAt.IsZero() {
		return ""
	}
	if !now.Before(f.DueAt) {
		return "overdue by " + span(now.Sub(f.DueAt))
	}
	return "due in " + span(f.DueAt.Sub(now))
}

// Label is the short form tables show: "due 2026-12-04", or "OVERDUE 3d"
// (how long past due); "" when the finding has no due date.
func Label(f model.Finding, now time.Time) string {
	switch {
	case f.DueAt.IsZero():
		return ""
	case !now.Before(f.DueAt):
		return "OVERDUE " + span(now.Sub(f.DueAt))
	}
	return "due " + Date(f.DueAt)
}

// span is a duration in whole days, or whole hours under a day.
func span(d time.Duration) string {
	switch {
	case d >= Day:
		return fmt.Sprintf("%dd", d/Day)
	case d >= time.Hour:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return "<1h"
}
