package postgres

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// columnRole is what a validation query's column means, by the naming
// convention documented on collectors.Verifier.
type columnRole int

const (
	colOther columnRole = iota
	colDay
	colMin
	colMax
	colCount
)

var columnRoles = map[string]columnRole{
	"partition": colDay, "day": colDay, "date": colDay,
	"min": colMin, "min_time": colMin, "min_event_time": colMin,
	"max": colMax, "max_time": colMax, "max_event_time": colMax,
	"count": colCount, "rows": colCount, "row_count": colCount,
}

// validationResult accumulates a validation query's rows.
type validationResult struct {
	roles    []columnRole
	dayIsTZ  bool // the day column is a timestamptz, to be read in the range's zone
	has      map[columnRole]bool
	rowsSeen int64
	count    int64
	min, max time.Time
	// dayTimes keeps raw day values until the zone is known.
	dayTimes []dayValue
}

type dayValue struct {
	t     time.Time
	count int64
}

func newValidationResult(fields []pgconn.FieldDescription) *validationResult {
	r := &validationResult{has: map[columnRole]bool{}}
	for _, f := range fields {
		role := columnRoles[strings.ToLower(f.Name)]
		if role != colOther && r.has[role] {
			role = colOther // the first column of a role wins
		}
		r.roles = append(r.roles, role)
		r.has[role] = true
		if role == colDay && f.DataTypeOID == pgtype.TimestamptzOID {
			r.dayIsTZ = true
		}
	}
	return r
}

func (r *validationResult) add(vals []any) error {
	r.rowsSeen++
	var (
		day      time.Time
		rowCount int64 = -1
	)
	for i, v := range vals {
		if v == nil {
			continue
		}
		switch r.roles[i] {
		case colDay:
			t, ok := timeOf(v)
			if !ok {
				return fmt.Errorf("day/partition value %v is not a date", v)
			}
			day = t
		case colMin:
			if t, ok := timeOf(v); ok && (r.min.IsZero() || t.Before(r.min)) {
				r.min = t
			}
		case colMax:
			if t, ok := timeOf(v); ok && t.After(r.max) {
				r.max = t
			}
		case colCount:
			n, ok := intOf(v)
			if !ok {
				return fmt.Errorf("count value %v is not a number", v)
			}
			rowCount = n
			r.count += n
		}
	}
	if r.has[colDay] && !day.IsZero() {
		r.dayTimes = append(r.dayTimes, dayValue{day, rowCount})
	}
	return nil
}

// fill writes the evidence into v. Without a count column, Rows is the
// number of result rows. Without min/max columns, per-day rows give the
// first and last day. Days of the declared [start, end) range with no row,
// or a zero count, are MissingPartitions.
func (r *validationResult) fill(v *model.Validation, rng model.Interval) error {
	v.Rows = r.rowsSeen
	if r.has[colCount] {
		v.Rows = r.count
	}
	loc, err := rng.Location()
	if err != nil {
		return fmt.Errorf("range time zone %q: %v", rng.TimeZone, err)
	}
	days := map[string]int64{}
	var first, last time.Time
	for _, d := range r.dayTimes {
		t := d.t
		if r.dayIsTZ {
			t = t.In(loc)
		}
		key := t.Format(time.DateOnly)
		if prev, ok := days[key]; ok && prev > 0 && d.count >= 0 {
			d.count += prev
		}
		days[key] = d.count
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	v.Min, v.Max = r.min, r.max
	if !r.has[colMin] {
		v.Min = first
	}
	if !r.has[colMax] {
		v.Max = last
	}
	if !r.has[colDay] || rng.Start.IsZero() || rng.End.IsZero() {
		return nil
	}
	v.MissingPartitions = rng.MissingDays(loc, func(day string) bool { return days[day] != 0 })
	return nil
}

// intOf reads a driver value as an integer, for count columns.
func intOf(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int16:
		return int64(n), true
	case int:
		return int64(n), true
	case float64:
		return int64(n), true
	case float32:
		return int64(n), true
	case pgtype.Numeric:
		i, err := n.Int64Value()
		return i.Int64, err == nil && i.Valid
	case string:
		i, err := strconv.ParseInt(n, 10, 64)
		return i, err == nil
	}
	return 0, false
}
