package records

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// timeValue is a date or timestamp in a plan or record. Plans are written
// by people, so a bare date (2026-03-01) is accepted and means midnight UTC.
type timeValue struct {
	time.Time
	// dateOnly records a bare date, so it can be placed at midnight in the
	// plan's time zone rather than UTC.
	dateOnly bool
}

// in returns the value in loc: a bare date becomes midnight there.
func (t timeValue) in(loc *time.Location) time.Time {
	if !t.dateOnly || loc == nil || t.IsZero() {
		return t.Time
	}
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// ExpectedValue says what a person writes here (decodeerr.Describer).
func (timeValue) ExpectedValue() string {
	return "a date (2026-03-01) or timestamp (2026-03-01T12:00:00Z)"
}

func (t *timeValue) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: expected a date (2026-03-01) or timestamp (2026-03-01T12:00:00Z)", n.Line)
	}
	v, err := parseTime(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	t.Time = v
	_, err = time.Parse("2006-01-02", strings.TrimSpace(n.Value))
	t.dateOnly = err == nil
	return nil
}

func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-03-01) or timestamp (2026-03-01T12:00:00Z)", s)
}
