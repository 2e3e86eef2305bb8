package model

import (
	"math"
	"time"
)

// Instant is a moment to the nanosecond in 8 bytes: an artifact's four
// times, which a time.Time keeps in 24 (its zone, which nothing here
// reads, is most of the rest). The zero Instant is no time, as the zero
// time.Time is.
//
// It holds nanoseconds since 1970 in UTC, so it spans 1678 to 2262: a
// time beyond (a "never" written as 9999-12-31) is kept as the last
// moment it holds, and one before as the first. The epoch itself reads
// one nanosecond later, as 0 is no time.
type Instant int64

var (
	firstInstant = time.Unix(0, math.MinInt64+1).UTC()
	lastInstant  = time.Unix(0, math.MaxInt64).UTC()
)

// At is the instant of t; the zero time is no instant.
func At(t time.Time) Instant {
	switch {
	case t.IsZero():
		return 0
	case t.Before(firstInstant):
		return Instant(math.MinInt64 + 1)
	case t.After(lastInstant):
		return Instant(math.MaxInt64)
	}
	if n := t.UnixNano(); n != 0 {
		return Instant(n)
	}
	return 1
}

// Time is the instant as a time in UTC; the zero time for no instant.
func (i Instant) Time() time.Time {
	if i == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(i)).UTC()
}

// IsZero reports whether there is no time.
func (i Instant) IsZero() bool { return i == 0 }

// MarshalJSON writes the time as a time.Time in UTC writes itself.
func (i Instant) MarshalJSON() ([]byte, error) { return i.Time().MarshalJSON() }

// UnmarshalJSON reads a time as time.Time does.
func (i *Instant) UnmarshalJSON(b []byte) error {
	var t time.Time
	if err := t.UnmarshalJSON(b); err != nil {
		return err
	}
	*i = At(t)
	return nil
}

// Format is the time's, in UTC.
func (i Instant) Format(layout string) string { return i.Time().Format(layout) }

// String is the time's, in UTC.
func (i Instant) String() string { return i.Time().String() }
