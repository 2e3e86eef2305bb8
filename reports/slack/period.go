package slack

import (
	"fmt"
	"time"
)

// Periods.
const (
	PeriodWeekly = "weekly"
	PeriodDaily  = "daily"
	PeriodEvery  = "every"
)

// periodKey names the digest period the audit time falls in: the ISO week
// (2026-W10) for weekly, the UTC date for daily, the run itself for every.
func periodKey(period string, at time.Time) string {
	at = at.UTC()
	switch period {
	case PeriodDaily:
		return at.Format("2006-01-02")
	case PeriodEvery:
		return "run " + at.Format(time.RFC3339Nano)
	default:
		y, w := at.ISOWeek()
		return fmt.Sprintf("%d-W%02d", y, w)
	}
}

// periodLabel is how the period reads in a message header; a per-run
// digest is dated by the audit time, so two in a channel tell apart.
func periodLabel(period, key string, at time.Time) string {
	switch period {
	case PeriodDaily:
		return key
	case PeriodEvery:
		return at.UTC().Format("2 Jan 2006 15:04 UTC")
	default:
		return "week " + key
	}
}
