package model

import (
	"encoding/json"
	"testing"
	"time"
)

// An instant writes as the time it holds, in UTC, to the nanosecond:
// what a time.Time in UTC writes, so estates and reports are unchanged.
func TestInstantWritesAsTheTime(t *testing.T) {
	for _, in := range []string{
		`"2026-11-30T00:00:00Z"`,
		`"2026-11-30T10:11:12.123456789Z"`,
		`"1999-01-01T23:59:59.5Z"`,
	} {
		var i Instant
		if err := json.Unmarshal([]byte(in), &i); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, _ := json.Marshal(i)
		var tm time.Time
		_ = json.Unmarshal([]byte(in), &tm)
		want, _ := json.Marshal(tm)
		if string(out) != string(want) || !i.Time().Equal(tm) {
			t.Errorf("%s: wrote %s, a time.Time writes %s", in, out, want)
		}
	}
	// Another zone is the same moment, written in UTC.
	var i Instant
	_ = json.Unmarshal([]byte(`"2026-11-30T10:00:00+02:00"`), &i)
	if got := i.Format(time.RFC3339); got != "2026-11-30T08:00:00Z" {
		t.Errorf("+02:00 read as %s", got)
	}
	if err := json.Unmarshal([]byte(`"yesterday"`), &i); err == nil {
		t.Error("a word read as a time")
	}
}

// The zero time is no instant, the epoch is a time, and a time beyond
// what 8 bytes hold keeps its side: a "never" stays in the far future.
func TestInstantEdges(t *testing.T) {
	if !At(time.Time{}).IsZero() || !Instant(0).Time().IsZero() {
		t.Error("the zero time is an instant")
	}
	epoch := At(time.Unix(0, 0))
	if epoch.IsZero() || epoch.Time().Sub(time.Unix(0, 0)) != time.Nanosecond {
		t.Errorf("the epoch read as %v", epoch.Time())
	}
	never := At(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC))
	if never.IsZero() || never.Time().Year() != 2262 || !never.Time().After(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("9999-12-31 read as %v", never.Time())
	}
	ancient := At(time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC))
	if ancient.IsZero() || ancient.Time().Year() != 1677 {
		t.Errorf("year 1 read as %v", ancient.Time())
	}
	local := time.Date(2026, 5, 1, 12, 0, 0, 7, time.FixedZone("x", 3600))
	if got := At(local).Time(); !got.Equal(local) || got.Location() != time.UTC {
		t.Errorf("%v read as %v", local, got)
	}
}
