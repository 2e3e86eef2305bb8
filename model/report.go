package model

import "time"

// ReportVersion is the schema version of the JSON report. Bump it when a
// field changes meaning or goes away; adding a field does not bump it.
const ReportVersion = 1

// Report is the outcome of an audit, the one value every writer and sink
// renders.
type Report struct {
	Version   int              `json:"version"`
	Tool      string           `json:"tool"`
	Now       time.Time        `json:"now"`
	Summary   Summary          `json:"summary"`
	Backfills []BackfillReport `json:"backfills"`
	Findings  []Finding        `json:"findings"`
	Coverage  []Coverage       `json:"coverage"`
	// History is filled when a history store is configured.
	History *History `json:"history,omitempty"`
	// Problems are what kept the run from finishing its work, besides the
	// sources in Coverage: a sink that failed, the deadline, a signal.
	// Any problem makes the report incomplete.
	Problems []string `json:"problems,omitempty"`
}

// Summary counts the report's findings.
type Summary struct {
	Backfills int `json:"backfills"`
	Artifacts int `json:"artifacts"`
	Records   int `json:"records"`
	Findings  int `json:"findings"` // not waived
	Waived    int `json:"waived"`
	// Overdue counts the open (unwaived) findings past their due date at
	// Now; the report writers count it from the findings.
	Overdue    int            `json:"overdue"`
	BySeverity map[string]int `json:"by_severity"` // not waived
	ByOwner    map[string]int `json:"by_owner"`    // not waived
	Complete   bool           `json:"complete"`    // every source answered, every sink delivered, the run finished
}

// BackfillReport is one backfill as the reports show it.
type BackfillReport struct {
	Backfill  *Backfill `json:"backfill"` // the index's own, shared, not a copy
	Known     bool      `json:"known"`    // a plan, record or scheduler object describes it
	Artifacts int       `json:"artifacts"`
	Findings  int       `json:"findings"` // not waived
	Lifecycle Lifecycle `json:"lifecycle"`
	// IssueURL links the backfill's GitHub issue, when the GitHub sink ran.
	IssueURL string `json:"issue_url,omitempty"`
}

// History is what the history store adds to a report.
type History struct {
	PreviousRun time.Time    `json:"previous_run,omitzero"`
	New         []string     `json:"new,omitempty"`      // fingerprints first seen this run
	Resolved    []Finding    `json:"resolved,omitempty"` // seen before, gone now
	Trend       []TrendPoint `json:"trend,omitempty"`
	// DueChanges are the due dates this run moved (docs/reports/due.md).
	DueChanges []DueChange `json:"due_changes,omitempty"`
	// Weekly is the weekly review, set once the store holds two runs
	// (docs/reports/weekly.md).
	Weekly *Weekly `json:"weekly,omitempty"`
}

// TrendPoint is the open-finding count of one past run.
type TrendPoint struct {
	At         time.Time      `json:"at"`
	Findings   int            `json:"findings"`
	BySeverity map[string]int `json:"by_severity,omitempty"`
}

// Failing reports whether any unwaived finding is at or above min.
func (r *Report) Failing(min Severity) bool {
	for _, f := range r.Findings {
		if !f.Waived() && f.Severity >= min {
			return true
		}
	}
	return false
}
