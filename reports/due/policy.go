// Package due gives every open finding a due date: the policy (how long a
// finding may stay open, by severity, rule and classification), how a
// stored due date carries across runs, and how the time left reads.
package due

import (
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Day is the unit due periods are written and shown in.
const Day = 24 * time.Hour

// Policy is the `due` section of the config, parsed. A zero period (none)
// means no due date.
type Policy struct {
	// Severity is the period for each severity; a missing severity has none.
	Severity map[model.Severity]time.Duration
	// Rules overrides the severity's period for a rule (by rule id); 0 is
	// none: that rule's findings get no due date.
	Rules map[string]time.Duration
	// Classifications shortens the period of findings about backfills of
	// that classification, when shorter; it never adds a due date.
	Classifications map[model.Classification]time.Duration
	// RemindBefore is how long before the due date the owner is reminded.
	RemindBefore time.Duration
	// EscalateAfter is how long after the due date the team is told.
	EscalateAfter time.Duration
	// NoticeDays is how many days before acting (`fix --apply --due`) or
	// reminding the owner must have been told.
	NoticeDays int
}

// Defaults of the policy (docs/reports/due.md).
const (
	DefaultRemindBefore  = 2 * Day
	DefaultEscalateAfter = 3 * Day
	DefaultNoticeDays    = 2
)

// DefaultPolicy is the policy when the config has no `due` section:
// critical 2d, high 7d, medium 14d, low 30d, info none.
func DefaultPolicy() Policy {
	return Policy{
		Severity: map[model.Severity]time.Duration{
			model.SeverityCritical: 2 * Day,
			model.SeverityHigh:     7 * Day,
			model.SeverityMedium:   14 * Day,
			model.SeverityLow:      30 * Day,
		},
		RemindBefore:  DefaultRemindBefore,
		EscalateAfter: DefaultEscalateAfter,
		NoticeDays:    DefaultNoticeDays,
	}
}

// Rule is the part of the policy that applies to one finding.
type Rule struct {
	// Period is how long the finding may stay open; 0 is no due date.
	Period time.Duration
	// From names where the period comes from: "severity high",
	// "rule BF003", "classification financial".
	From string
}

// None reports whether no due date applies.
func (r Rule) None() bool { return r.Period <= 0 }

// String is the rule as stored with a due date and shown when it moves:
// "severity high 7d", "rule BF003 none".
func (r Rule) String() string {
	if r.From == "" {
		return Period(r.Period)
	}
	return r.From + " " + Period(r.Period)
}

// For resolves the rule for a finding about a backfill of classification
// class: the rule's period when the policy names the rule, else the
// severity's; then a classification's period when it is shorter. No
// period (info by default, or a rule set to none) stays none: a
// classification shortens a due date, it does not add one.
func (p Policy) For(f model.Finding, class model.Classification) Rule {
	r := Rule{Period: p.Severity[f.Severity], From: "severity " + f.Severity.String()}
	if d, ok := p.Rules[f.RuleID]; ok {
		r = Rule{Period: d, From: "rule " + f.RuleID}
	}
	if r.None() {
		return Rule{From: r.From}
	}
	if d, ok := p.Classifications[class]; ok && class != "" && d > 0 && d < r.Period {
		r = Rule{Period: d, From: "classification " + string(class)}
	}
	return r
}

// Period writes a period as the config does: whole days as "7d", other
// durations as Go writes them, none as "none".
func Period(d time.Duration) string {
	switch {
	case d <= 0:
		return "none"
	case d%Day == 0:
		return fmt.Sprintf("%dd", d/Day)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Classes maps each backfill in the report to its classification, for For.
func Classes(r *model.Report) map[model.BackfillID]model.Classification {
	out := map[model.BackfillID]model.Classification{}
	for _, b := range r.Backfills {
		if b.Backfill.Classification.Classified() {
			out[model.ParseID(b.Backfill.ID)] = b.Backfill.Classification
		}
	}
	return out
}
