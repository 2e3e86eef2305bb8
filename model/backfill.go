package model

import (
	"strings"
	"time"
)

// Status is where a backfill is in its run, as declared or observed.
type Status string

// Statuses in the order a backfill passes through them.
const (
	StatusPlanned  Status = "planned"
	StatusRunning  Status = "running"
	StatusReplayed Status = "replayed"
	StatusVerified Status = "verified"
	StatusArchived Status = "archived"
	StatusRetired  Status = "retired"
)

var statusOrder = map[Status]int{
	StatusPlanned: 1, StatusRunning: 2, StatusReplayed: 3,
	StatusVerified: 4, StatusArchived: 5, StatusRetired: 6,
}

// Rank orders statuses; an unknown status ranks 0.
func (s Status) Rank() int { return statusOrder[s] }

// IsValid reports whether s is a known status.
func (s Status) IsValid() bool { return statusOrder[s] > 0 }

// Completed reports whether the replay itself has finished (replayed or later).
func (s Status) Completed() bool { return s.Rank() >= StatusReplayed.Rank() }

// Trigger is why a backfill was run (docs/practice.md, "What a backfill is").
type Trigger string

// Triggers.
const (
	TriggerOutage           Trigger = "outage"
	TriggerNewJob           Trigger = "new_job"
	TriggerBugFix           Trigger = "bug_fix"
	TriggerLateData         Trigger = "late_data"
	TriggerDefinitionChange Trigger = "definition_change"
)

// Strategy is how the replay runs (docs/practice.md, "Strategies").
type Strategy string

// Strategies.
const (
	StrategyInterval Strategy = "interval"
	StrategyParallel Strategy = "parallel"
	StrategyBulk     Strategy = "bulk"
	StrategyReverse  Strategy = "reverse"
	StrategyShadow   Strategy = "shadow"
)

// WriteMode is how each run writes its output.
type WriteMode string

// Write modes.
const (
	WritePartitionOverwrite WriteMode = "partition_overwrite"
	WriteAppend             WriteMode = "append"
)

// Classification marks data whose cleanup must not be rushed
// (docs/practice.md, "Sensitive data and special semantics").
type Classification string

// Classifications. The empty classification means none.
const (
	ClassFinancial  Classification = "financial"
	ClassCustomer   Classification = "customer"
	ClassSecurity   Classification = "security"
	ClassCompliance Classification = "compliance"
)

// Classified reports whether the data needs the slower, evidence-keeping path.
func (c Classification) Classified() bool { return c != "" && c != "none" }

// Interval is a half-open range [Start, End) of logical dates.
type Interval struct {
	Start    time.Time `json:"start,omitzero"`
	End      time.Time `json:"end,omitzero"`
	TimeZone string    `json:"time_zone,omitempty"`
}

// IsZero reports whether no range was given.
func (i Interval) IsZero() bool { return i.Start.IsZero() && i.End.IsZero() }

// Location is the time zone the range's days are counted in: TimeZone,
// UTC when it names none.
func (i Interval) Location() (*time.Location, error) {
	if i.TimeZone == "" {
		return time.UTC, nil
	}
	return time.LoadLocation(i.TimeZone)
}

// MissingDays lists in order the days (2006-01-02) of [Start, End),
// counted in loc, that seen says no data was found for: the partitions a
// validation query's result lacks.
func (i Interval) MissingDays(loc *time.Location, seen func(day string) bool) []string {
	start := i.Start.In(loc)
	var missing []string
	for d := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, loc); d.Before(i.End); d = d.AddDate(0, 0, 1) {
		if day := d.Format(time.DateOnly); !seen(day) {
			missing = append(missing, day)
		}
	}
	return missing
}

// ElevatedAccess is a permission granted only for the replay.
type ElevatedAccess struct {
	Principal string    `json:"principal"`
	Role      string    `json:"role,omitempty"`
	Expiry    time.Time `json:"expiry,omitzero"`
}

// SpecialSemantics records shortcuts the replay took that must not become normal.
type SpecialSemantics struct {
	SkippedDedup       bool   `json:"skipped_dedup,omitempty"`
	BypassedValidation bool   `json:"bypassed_validation,omitempty"`
	DirectWrite        bool   `json:"direct_write,omitempty"`
	Note               string `json:"note,omitempty"`
}

// Any reports whether any special semantics were used.
func (s SpecialSemantics) Any() bool { return s.SkippedDedup || s.BypassedValidation || s.DirectWrite }

// Timeline holds when a backfill reached each status; zero means not known.
type Timeline struct {
	StartedAt   time.Time `json:"started_at,omitzero"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
	VerifiedAt  time.Time `json:"verified_at,omitzero"`
	ArchivedAt  time.Time `json:"archived_at,omitzero"`
	RetiredAt   time.Time `json:"retired_at,omitzero"`
}

// Completed returns when the replay finished, and whether the time is
// known: its completion, else the first later step that has a time.
func (t Timeline) Completed() (time.Time, bool) {
	for _, v := range []time.Time{t.CompletedAt, t.VerifiedAt, t.ArchivedAt, t.RetiredAt} {
		if !v.IsZero() {
			return v, true
		}
	}
	return time.Time{}, false
}

// Origin says what kind of source described a backfill.
type Origin string

// Origins. A plan declares intent; a scheduler observes what ran.
const (
	OriginPlan      Origin = "plan"
	OriginScheduler Origin = "scheduler"
)

// Backfill is one replay of a job over past intervals, as planned or observed.
type Backfill struct {
	ID              string         `json:"id"`
	Origin          Origin         `json:"origin,omitempty"`
	Purpose         string         `json:"purpose,omitempty"`
	Trigger         Trigger        `json:"trigger,omitempty"`
	JobID           string         `json:"job_id,omitempty"`
	Range           Interval       `json:"range,omitzero"`
	Owner           string         `json:"owner,omitempty"`
	Approver        string         `json:"approver,omitempty"`
	Classification  Classification `json:"classification,omitempty"`
	Status          Status         `json:"status,omitempty"`
	Timeline        Timeline       `json:"timeline,omitzero"`
	Expiry          time.Time      `json:"expiry,omitzero"`
	ValidationQuery string         `json:"validation_query,omitempty"`
	// ReplayQuery is the query the replay runs per interval, with the
	// interval's bounds as @start and @end: `plan check --live` dry-runs
	// it to say what the replay will cost.
	ReplayQuery    string           `json:"replay_query,omitempty"`
	AssetsToRemove []string         `json:"assets_to_remove,omitempty"`
	ElevatedAccess []ElevatedAccess `json:"elevated_access,omitempty"`
	// Cleanup names the person responsible for closing access and assets.
	CleanupOwner string `json:"cleanup_owner,omitempty"`

	Strategy      Strategy  `json:"strategy,omitempty"`
	Concurrency   int       `json:"concurrency,omitempty"` // 0: no cap declared
	Pool          string    `json:"pool,omitempty"`
	DependsOnPast bool      `json:"depends_on_past,omitempty"`
	WriteMode     WriteMode `json:"write_mode,omitempty"`
	// ReprocessBehavior is which intervals the replay runs again, in
	// Airflow 3's words: none (only intervals without a run), failed, or
	// completed (every interval); "" when the plan does not say.
	ReprocessBehavior string `json:"reprocess_behavior,omitempty"`
	// Targets are the tables the replay overwrote (URIs or names); lineage
	// rules walk downstream from them.
	Targets []string `json:"targets,omitempty"`
	// SideEffects lists side effects the job has (emails, invoices, alerts);
	// SideEffectsDisabled says they are guarded for historical intervals.
	SideEffects         []string `json:"side_effects,omitempty"`
	SideEffectsDisabled bool     `json:"side_effects_disabled,omitempty"`
	// FeatureFlags and Dashboards name the flags and dashboards the replay
	// uses or made (a name or a URI); each must also be in AssetsToRemove.
	FeatureFlags      []string         `json:"feature_flags,omitempty"`
	Dashboards        []string         `json:"dashboards,omitempty"`
	Special           SpecialSemantics `json:"special_semantics,omitzero"`
	TrialInterval     bool             `json:"trial_interval,omitempty"`
	ConsumersNotified bool             `json:"consumers_notified,omitempty"`
	// Notified lists who was told (people or teams, as owners are written):
	// lineage rules check every downstream owner is among them.
	Notified []string `json:"notified,omitempty"`
	// KeepEvidence says the manifest and validation evidence will be kept
	// (required for classified data).
	KeepEvidence bool   `json:"keep_evidence,omitempty"`
	CostEstimate string `json:"cost_estimate,omitempty"`
	// Estimates are what the warehouses said of the plan before the
	// replay (`plan check --live` only; BF116 compares CostEstimate with them).
	Estimates []Estimate `json:"-"`

	// Validation is the result of running the validation query, when a
	// collector ran it.
	Validation *Validation `json:"validation,omitempty"`
	// ValidationSource names the configured source (a warehouse collector)
	// that runs ValidationQuery.
	ValidationSource string `json:"validation_source,omitempty"`
	// Scheduled is what schedulers report running for this backfill, one
	// view per scheduler object; correlation gathers them from every source.
	Scheduled []SchedulerView `json:"scheduled,omitempty"`
	// Notes are disagreements between sources found while correlating.
	Notes  []string `json:"notes,omitempty"`
	Source Location `json:"source,omitzero"`
	// CodeOwners are the owners a CODEOWNERS file gives the plan's file,
	// in its order: who answers for the backfill when the plan names no
	// owner (correlate.Index.BackfillOwner).
	CodeOwners []string `json:"code_owners,omitempty"`
	// LastKnown, when set, says the plan did not answer this run and the
	// backfill is described as the history store last read it, at that time.
	LastKnown time.Time `json:"last_known,omitzero"`

	// Key is ID in its normal form, set by correlate: lookups use it, never
	// the spelling. It is not saved; an estate read back goes through
	// correlate again.
	Key BackfillID `json:"-"`
}

// Validation is the evidence of a validation query run against the warehouse.
type Validation struct {
	Query             string    `json:"query"`
	RanAt             time.Time `json:"ran_at,omitzero"`
	Rows              int64     `json:"rows"`
	Min               time.Time `json:"min,omitzero"`
	Max               time.Time `json:"max,omitzero"`
	MissingPartitions []string  `json:"missing_partitions,omitempty"`
	BytesProcessed    int64     `json:"bytes_processed,omitempty"`
	Error             string    `json:"error,omitempty"`
	Source            string    `json:"source,omitempty"`
}

// Location points at where something was read from: a file and line, or a
// system and an object in it.
type Location struct {
	Source string `json:"source,omitempty"` // collector instance name
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
}

// IsZero reports whether the location is empty.
func (l Location) IsZero() bool { return l == Location{} }

func (l Location) String() string {
	switch {
	case l.Path == "":
		return l.Source
	case l.Line > 0:
		return l.Path + ":" + itoa(l.Line)
	default:
		return l.Path
	}
}

// ListsForRemoval reports whether the plan's assets_to_remove holds name:
// the same text, or a URI ending in it ("/name" or "#name"), as plans name
// flags and dashboards by name and list assets by URI.
func (b *Backfill) ListsForRemoval(name string) bool {
	for _, a := range b.AssetsToRemove {
		if a == name || strings.HasSuffix(a, "/"+name) || strings.HasSuffix(a, "#"+name) {
			return true
		}
	}
	return false
}
