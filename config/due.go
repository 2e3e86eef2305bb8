package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/duration"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/rules"
)

// Due is the `due` section of the config file: how long a finding may stay
// open (docs/reports/due.md). Periods are durations ("7d", "36h") or
// "none"; what the section leaves out keeps its default.
type Due struct {
	// Severity is the period per severity.
	Severity DueSeverity `mapstructure:"severity"`
	// Rules overrides the severity's period for a rule.
	Rules map[string]string `mapstructure:"rules"`
	// Classifications shortens the period for backfills of a classification.
	Classifications map[string]string `mapstructure:"classifications"`
	// RemindBefore, EscalateAfter and NoticeDays are read by the reminders,
	// the escalation and `fix --apply --due`.
	RemindBefore  string `mapstructure:"remind_before"`
	EscalateAfter string `mapstructure:"escalate_after"`
	NoticeDays    *int   `mapstructure:"notice_days"`
}

// DueSeverity is the period of each severity; a severity left out keeps
// its default (critical 2d, high 7d, medium 14d, low 30d, info none). A
// struct, not a map, so each key has its env var (BFAUDIT_DUE_SEVERITY_HIGH).
type DueSeverity struct {
	Critical string `mapstructure:"critical"`
	High     string `mapstructure:"high"`
	Medium   string `mapstructure:"medium"`
	Low      string `mapstructure:"low"`
	Info     string `mapstructure:"info"`
}

// classifications a due period may name.
var classifications = []model.Classification{model.ClassFinancial, model.ClassCustomer, model.ClassSecurity, model.ClassCompliance}

// policy checks the section and builds the policy; rule ids are checked
// against the engine's rules. Errors name the key (due.severity.high).
func (d Due) policy(eng *rules.Engine) (due.Policy, *keyError) {
	p := due.DefaultPolicy()
	for _, s := range []struct {
		sev model.Severity
		raw string
	}{{model.SeverityCritical, d.Severity.Critical}, {model.SeverityHigh, d.Severity.High},
		{model.SeverityMedium, d.Severity.Medium}, {model.SeverityLow, d.Severity.Low}, {model.SeverityInfo, d.Severity.Info}} {
		if s.raw == "" {
			continue
		}
		v, err := period(s.raw)
		if err != nil {
			return p, &keyError{"due.severity." + s.sev.String(), err}
		}
		p.Severity[s.sev] = v
	}
	if len(d.Rules) > 0 {
		p.Rules = map[string]time.Duration{}
	}
	for _, id := range slices.Sorted(maps.Keys(d.Rules)) {
		key := "due.rules." + id
		canon := ""
		for _, r := range eng.Rules() {
			if strings.EqualFold(r.ID, id) {
				canon = r.ID
			}
		}
		if canon == "" {
			return p, &keyError{key, fmt.Errorf("unknown rule (`bfaudit rules list` lists them)")}
		}
		v, err := period(d.Rules[id])
		if err != nil {
			return p, &keyError{key, err}
		}
		p.Rules[canon] = v
	}
	if len(d.Classifications) > 0 {
		p.Classifications = map[model.Classification]time.Duration{}
	}
	for _, name := range slices.Sorted(maps.Keys(d.Classifications)) {
		key := "due.classifications." + name
		c := model.Classification(strings.ToLower(name))
		if !slices.Contains(classifications, c) {
			return p, &keyError{key, fmt.Errorf("unknown classification (expected one of %s)", joinClasses())}
		}
		v, err := period(d.Classifications[name])
		if err != nil {
			return p, &keyError{key, err}
		}
		p.Classifications[c] = v
	}
	for _, f := range []struct {
		key string
		raw string
		out *time.Duration
	}{{"due.remind_before", d.RemindBefore, &p.RemindBefore}, {"due.escalate_after", d.EscalateAfter, &p.EscalateAfter}} {
		if f.raw == "" {
			continue
		}
		v, err := duration.Parse(f.raw)
		if err == nil && v <= 0 {
			err = fmt.Errorf("must be a positive duration such as 2d, got %s", f.raw)
		}
		if err != nil {
			return p, &keyError{f.key, err}
		}
		*f.out = v
	}
	if d.NoticeDays != nil {
		if *d.NoticeDays < 0 || *d.NoticeDays > duration.MaxDurationDays {
			return p, &keyError{"due.notice_days", fmt.Errorf("must be a whole number of days from 0 to %d, got %d", duration.MaxDurationDays, *d.NoticeDays)}
		}
		p.NoticeDays = *d.NoticeDays
	}
	return p, nil
}

// period reads a due period: a positive duration, or none.
func period(s string) (time.Duration, error) {
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		return 0, nil
	}
	v, err := duration.Parse(s)
	if err != nil {
		return 0, err
	}
	if v <= 0 {
		return 0, fmt.Errorf("must be a positive duration such as 7d, or none, got %s", s)
	}
	return v, nil
}

func joinClasses() string {
	names := make([]string, len(classifications))
	for i, c := range classifications {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// keyError is a problem with one key of the section.
type keyError struct {
	key string
	err error
}
