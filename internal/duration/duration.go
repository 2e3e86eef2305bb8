// Package duration reads the durations of config files, plans and rules:
// Go durations plus whole days ("30d"), range-checked so a typo cannot
// wrap around time.Duration.
package duration

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// MaxDurationDays bounds every duration in config: far above any grace
// period or retention, and well below time.Duration's limit (about 106751
// days), so a typo like 213504d is an error instead of wrapping around.
const MaxDurationDays = 100000

// MaxDuration is MaxDurationDays as a time.Duration.
const MaxDuration = MaxDurationDays * 24 * time.Hour

// Parse reads a Go duration, also accepting whole days ("30d"),
// the unit retention and grace periods are usually given in. Durations
// beyond MaxDurationDays either way are errors.
func Parse(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if num, ok := strings.CutSuffix(s, "d"); ok && wholeNumber(num) {
		days, err := strconv.ParseInt(num, 10, 64)
		if err != nil || days > MaxDurationDays || days < -MaxDurationDays {
			return 0, outOfRange(s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (expected e.g. 72h or 30d, at most %dd)", s, MaxDurationDays)
	}
	if d > MaxDuration || d < -MaxDuration {
		return 0, outOfRange(s)
	}
	return d, nil
}

func outOfRange(s string) error {
	return fmt.Errorf("duration %q is out of range: must be at most %dd", s, MaxDurationDays)
}

// wholeNumber reports whether s is an optional minus sign and digits.
func wholeNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

var durationType = reflect.TypeOf(time.Duration(0))

// Hook is the mapstructure decode hook for time.Duration fields:
// it reads durations as strings ("72h", "30d") or as a number of
// seconds (timeout: 30), range-checked either way.
func Hook(from, to reflect.Type, data any) (any, error) {
	if to != durationType {
		return data, nil
	}
	var secs float64
	switch v := data.(type) {
	case string:
		return Parse(v)
	case int:
		secs = float64(v)
	case int64:
		secs = float64(v)
	case uint64:
		secs = float64(v)
	case float64:
		secs = v
	default:
		return data, nil
	}
	if math.IsNaN(secs) || math.Abs(secs) > MaxDuration.Seconds() {
		return nil, fmt.Errorf("duration %v (seconds) is out of range: must be at most %dd", data, MaxDurationDays)
	}
	return time.Duration(secs * float64(time.Second)), nil
}
