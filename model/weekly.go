package model

import (
	"fmt"
	"time"
)

// WeeklyWeeks is how many ISO weeks the weekly review looks back over,
// the current one included.
const WeeklyWeeks = 12

// Weekly is the weekly review the history store computes once it holds two
// runs or more (docs/reports/weekly.md): where the open findings went week
// by week, what is oldest, who closes slowest, how far the backfills got.
type Weekly struct {
	// Weeks are the weeks of the last WeeklyWeeks that have a run, oldest
	// first, the current week last.
	Weeks []WeekPoint `json:"weeks"`
	// Oldest are the open unwaived findings (at most 10), most severe
	// first, then seen first longest ago.
	Oldest []OldFinding `json:"oldest,omitempty"`
	// CloseByOwner and CloseByTeam are the median times to close of the
	// findings resolved in those weeks, slowest first. Owners in no team
	// are left out of CloseByTeam.
	CloseByOwner []CloseTime `json:"close_by_owner,omitempty"`
	CloseByTeam  []CloseTime `json:"close_by_team,omitempty"`
	// Funnel counts the known backfills that reached each lifecycle step,
	// StepPlan (every known backfill) first.
	Funnel []StepCount `json:"funnel,omitempty"`
	// OverdueByTeam counts this run's open, unwaived, overdue findings by
	// the owner's team ("(no team)" for none), most first.
	OverdueByTeam []TeamCount `json:"overdue_by_team,omitempty"`
}

// WeekPoint is one ISO week.
type WeekPoint struct {
	Week  string    `json:"week"`  // ISO week, e.g. "2026-W47"
	Start time.Time `json:"start"` // its Monday, 00:00 UTC
	// Open and BySeverity are the unwaived open findings at the week's
	// last run.
	Open       int            `json:"open"`
	BySeverity map[string]int `json:"by_severity,omitempty"`
	// New counts the findings first seen in the week. Resolved counts the
	// findings whose resolution falls in the week; the store keeps only a
	// finding's last resolution, so one resolved, reopened and resolved
	// again counts once, in the week it was last resolved.
	New      int `json:"new"`
	Resolved int `json:"resolved"`
}

// OldFinding is one of the oldest open findings.
type OldFinding struct {
	Fingerprint string    `json:"fingerprint"`
	RuleID      string    `json:"rule_id"`
	BackfillID  string    `json:"backfill_id,omitempty"`
	Owner       string    `json:"owner,omitempty"`
	Severity    Severity  `json:"severity"`
	FirstSeen   time.Time `json:"first_seen"`
	AgeDays     int       `json:"age_days"`
}

// CloseTime is how fast one owner or team closes findings.
type CloseTime struct {
	Name       string  `json:"name"`
	Closed     int     `json:"closed"`
	MedianDays float64 `json:"median_days"` // resolved_at - first_seen, one decimal
}

// StepCount is how many backfills reached a lifecycle step.
type StepCount struct {
	Step      Step `json:"step"`
	Backfills int  `json:"backfills"`
}

// TeamCount is a count of findings for one team.
type TeamCount struct {
	Team  string `json:"team"`
	Count int    `json:"count"`
}

// ISOWeek names t's ISO 8601 week ("2026-W47") and gives its Monday at
// 00:00 UTC. ISO weeks start on Monday, and the first week of a year is
// the one holding its first Thursday, so 2026-12-31 may be in 2027-W01.
func ISOWeek(t time.Time) (string, time.Time) {
	t = t.UTC()
	y, w := t.ISOWeek()
	back := (int(t.Weekday()) + 6) % 7 // days since Monday
	start := time.Date(t.Year(), t.Month(), t.Day()-back, 0, 0, 0, 0, time.UTC)
	return fmt.Sprintf("%04d-W%02d", y, w), start
}
