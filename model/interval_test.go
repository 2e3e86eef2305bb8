package model

import (
	"strings"
	"testing"
	"time"
)

// The days of a half-open range are counted in its time zone: a range
// starting at midnight in Berlin begins on that day, not the one before
// in UTC, and its end day is not in it.
func TestIntervalMissingDaysInItsTimeZone(t *testing.T) {
	r := Interval{TimeZone: "Europe/Berlin",
		Start: time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC), End: time.Date(2026, 3, 4, 23, 0, 0, 0, time.UTC)}
	loc, err := r.Location()
	if err != nil {
		t.Fatal(err)
	}
	got := r.MissingDays(loc, func(day string) bool { return day == "2026-03-03" })
	if strings.Join(got, ",") != "2026-03-02,2026-03-04" {
		t.Errorf("missing = %q", got)
	}
	if _, err := (Interval{TimeZone: "Mars/Olympus"}).Location(); err == nil {
		t.Error("an unknown time zone is an error")
	}
	if loc, _ := (Interval{}).Location(); loc != time.UTC {
		t.Errorf("no time zone: %v, want UTC", loc)
	}
}
