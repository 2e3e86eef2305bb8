package model

import (
	"fmt"
	"strings"
)

// Severity ranks a finding. The zero value is not a valid severity so that a
// rule or override that forgot to set one is caught by IsValid.
type Severity int8

// Severities from least to most severe.
const (
	SeverityInfo Severity = iota + 1
	SeverityLow
	SeverityMedium
	SeverityHigh
	SeverityCritical
)

var severityNames = map[Severity]string{
	SeverityInfo:     "info",
	SeverityLow:      "low",
	SeverityMedium:   "medium",
	SeverityHigh:     "high",
	SeverityCritical: "critical",
}

// Severities lists every valid severity, most severe first.
func Severities() []Severity {
	return []Severity{SeverityCritical, SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo}
}

// IsValid reports whether s is one of the defined severities.
func (s Severity) IsValid() bool { _, ok := severityNames[s]; return ok }

func (s Severity) String() string {
	if n, ok := severityNames[s]; ok {
		return n
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity reads a severity name, case-insensitively.
func ParseSeverity(s string) (Severity, error) {
	for v, n := range severityNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want critical, high, medium, low or info)", s)
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) {
	if !s.IsValid() {
		return nil, fmt.Errorf("invalid severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
