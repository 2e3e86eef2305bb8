package iamcond

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AWSExpiry returns the time after which an AWS IAM policy statement can no
// longer allow anything because its Condition block (condition, the JSON
// object under "Condition") bounds the request time from above:
//
//	{"DateLessThan": {"aws:CurrentTime": "2026-03-01T00:00:00Z"}}
//	{"DateLessThanEquals": {"aws:EpochTime": "1772323200"}}
//	{"NumericLessThan": {"aws:EpochTime": 1772323200}}
//
// The rules are IAM's own (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-logic-multiple-context-keys-or-values.html):
// every operator and every key of a block must hold, so the earliest bound
// wins; the values listed for one key are alternatives, so the latest of
// them is the bound. Operator and key names are read without regard to
// case, and an operator's IfExists form bounds as the plain one does
// (aws:CurrentTime is always present). Anything else, a lower bound
// (DateGreaterThan), a set operator (ForAnyValue:), another key, bounds
// nothing: ok is false when no part of the block bounds the time, and
// the statement is then not time-bound. A block that is not JSON, or a
// bound that is neither ISO 8601 nor epoch seconds, is an error naming the
// operator and key.
func AWSExpiry(condition []byte) (t time.Time, ok bool, err error) {
	condition = bytes.TrimSpace(condition)
	if len(condition) == 0 || string(condition) == "null" {
		return time.Time{}, false, nil
	}
	var block map[string]map[string]json.RawMessage
	if err := json.Unmarshal(condition, &block); err != nil {
		return time.Time{}, false, fmt.Errorf("iamcond: the Condition block is not an object of operators and keys: %v", err)
	}
	// In name order, so a block with two bad bounds names the same one
	// every run.
	for _, op := range slices.Sorted(maps.Keys(block)) {
		for _, key := range slices.Sorted(maps.Keys(block[op])) {
			if !awsUpperBound(op, key) {
				continue
			}
			b, err := awsLatest(block[op][key])
			if err != nil {
				return time.Time{}, false, fmt.Errorf("iamcond: Condition %s %s: %v", op, key, err)
			}
			if !ok || b.Before(t) {
				t, ok = b, true
			}
		}
	}
	return t, ok, nil
}

// awsUpperBound reports whether op on key bounds the request time from
// above.
func awsUpperBound(op, key string) bool {
	op = strings.TrimSuffix(strings.ToLower(op), "ifexists")
	switch strings.ToLower(key) {
	case "aws:currenttime":
		return op == "datelessthan" || op == "datelessthanequals"
	case "aws:epochtime":
		return op == "datelessthan" || op == "datelessthanequals" || op == "numericlessthan" || op == "numericlessthanequals"
	}
	return false
}

// awsLatest reads one key's value, a single value or a list of them, as
// the latest of its times.
func awsLatest(raw json.RawMessage) (time.Time, error) {
	var values []json.RawMessage
	if err := json.Unmarshal(raw, &values); err != nil {
		values = []json.RawMessage{raw}
	}
	if len(values) == 0 {
		return time.Time{}, fmt.Errorf("no value")
	}
	var latest time.Time
	for _, v := range values {
		t, err := awsTime(v)
		if err != nil {
			return time.Time{}, err
		}
		if t.After(latest) {
			latest = t
		}
	}
	return latest, nil
}

// awsDateLayouts are the ISO 8601 forms IAM takes for a date; a time
// without a zone is UTC.
var awsDateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02"}

// awsTime reads a date as IAM writes it: ISO 8601, or epoch seconds (a
// JSON number or a string of digits).
func awsTime(v json.RawMessage) (time.Time, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		var n json.Number
		if json.Unmarshal(v, &n) != nil {
			return time.Time{}, fmt.Errorf("%s is not a date (expected e.g. \"2026-03-01T00:00:00Z\" or epoch seconds)", truncate(string(v)))
		}
		s = n.String()
	}
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
		if secs < 0 || secs > 253402300799 { // year 9999
			return time.Time{}, fmt.Errorf("%q is not epoch seconds this side of year 9999", s)
		}
		return time.Unix(secs, 0).UTC(), nil
	}
	for _, layout := range awsDateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (expected ISO 8601 such as 2026-03-01T00:00:00Z, or epoch seconds)", truncate(s))
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
