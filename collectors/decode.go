package collectors

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/decodeerr"
)

// Decode builds the collector one `sources:` entry of the config describes:
// it looks up the entry's type, decodes the rest of the entry into a fresh
// collector (unknown keys are errors, so a typo is caught), and runs Init
// when it has it. Errors name the key that was wrong. sel is handed to
// collectors that filter by it; its Assets are filled later, before Collect.
func Decode(entry map[string]any, sel *correlate.Selector) (Instance, error) {
	var s Settings
	if err := mapstructure.Decode(map[string]any{"type": entry["type"], "name": entry["name"]}, &s); err != nil {
		return Instance{}, fmt.Errorf("type/name: %w", err)
	}
	if s.Type == "" {
		return Instance{}, fmt.Errorf("type: missing; expected one of %s", strings.Join(Names(), ", "))
	}
	f, ok := Lookup(s.Type)
	if !ok {
		return Instance{}, fmt.Errorf("type: unknown collector %q; expected one of %s", s.Type, strings.Join(Names(), ", "))
	}
	if s.Name == "" {
		s.Name = s.Type
	}
	c := f()
	rest := make(map[string]any, len(entry))
	for k, v := range entry {
		if k != "type" && k != "name" {
			rest[k] = v
		}
	}
	if err := DecodeInto(rest, c); err != nil {
		return Instance{}, err
	}
	if n, ok := c.(Namer); ok {
		n.SetSourceName(s.Name)
	}
	if su, ok := c.(SelectorUser); ok && sel != nil {
		su.UseSelector(sel)
	}
	if in, ok := c.(Initializer); ok {
		if err := in.Init(); err != nil {
			return Instance{}, err
		}
	}
	return Instance{Name: s.Name, Type: s.Type, Collector: c}, nil
}

// DecodeInto decodes a loosely typed config section into a typed struct:
// durations ("72h", "30d"), RFC 3339 times and comma-free string lists are
// converted, and unknown keys are reported by name.
func DecodeInto(in map[string]any, out any) error {
	var md mapstructure.Metadata
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           out,
		Metadata:         &md,
		ErrorUnused:      true,
		WeaklyTypedInput: true,
		TagName:          "mapstructure",
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			DurationHook,
			mapstructure.StringToTimeHookFunc(time.RFC3339),
		),
	})
	if err != nil {
		return err
	}
	if err := dec.Decode(in); err != nil {
		return decodeerr.Mapstructure(err, out)
	}
	return nil
}

// MaxDurationDays bounds every duration in config: far above any grace
// period or retention, and well below time.Duration's limit (about 106751
// days), so a typo like 213504d is an error instead of wrapping around.
const MaxDurationDays = 100000

// MaxDuration is MaxDurationDays as a time.Duration.
const MaxDuration = MaxDurationDays * 24 * time.Hour

// ParseDuration reads a Go duration, also accepting whole days ("30d"),
// the unit retention and grace periods are usually given in. Durations
// beyond MaxDurationDays either way are errors.
func ParseDuration(s string) (time.Duration, error) {
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

// DurationHook is the mapstructure decode hook for time.Duration fields:
// it reads durations as strings ("72h", "30d") or as a number of
// seconds (timeout: 30), range-checked either way.
func DurationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType {
		return data, nil
	}
	var secs float64
	switch v := data.(type) {
	case string:
		return ParseDuration(v)
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
