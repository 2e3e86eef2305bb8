package bigquery

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	"github.com/bfaudit/bfaudit/model"
)

// Column names of the collectors.Verifier convention, lowercase.
var (
	partitionColumns = []string{"partition", "day", "date"}
	minColumns       = []string{"min", "min_time", "min_event_time"}
	maxColumns       = []string{"max", "max_time", "max_event_time"}
	countColumns     = []string{"count", "rows", "row_count"}
)

// summarize reads a validation result into v: Rows is the sum of the
// count column (or the number of result rows when there is none), Min and
// Max the extremes of the min and max columns, and, when the result has a
// partition column, MissingPartitions the days of the declared range with
// no row (or a zero count).
func summarize(v *model.Validation, names []string, rows [][]any, r model.Interval) error {
	col := func(cands []string) int {
		for _, want := range cands {
			for i, n := range names {
				if strings.EqualFold(n, want) {
					return i
				}
			}
		}
		return -1
	}
	pi, mini, maxi, ci := col(partitionColumns), col(minColumns), col(maxColumns), col(countColumns)
	if pi < 0 && mini < 0 && maxi < 0 && ci < 0 {
		return fmt.Errorf("result has none of the expected columns (partition/day/date, min, max, count); got %s", strings.Join(names, ", "))
	}
	loc, err := r.Location()
	if err != nil {
		return fmt.Errorf("range time zone %q: %w", r.TimeZone, err)
	}
	seen := map[string]bool{}
	for i, row := range rows {
		count := int64(1)
		if ci >= 0 {
			n, err := toInt(row[ci])
			if err != nil {
				return fmt.Errorf("row %d column %s: %w", i+1, names[ci], err)
			}
			count = n
		}
		v.Rows += count
		if mini >= 0 && row[mini] != nil {
			t, err := toTime(row[mini], loc)
			if err != nil {
				return fmt.Errorf("row %d column %s: %w", i+1, names[mini], err)
			}
			if v.Min.IsZero() || t.Before(v.Min) {
				v.Min = t
			}
		}
		if maxi >= 0 && row[maxi] != nil {
			t, err := toTime(row[maxi], loc)
			if err != nil {
				return fmt.Errorf("row %d column %s: %w", i+1, names[maxi], err)
			}
			if t.After(v.Max) {
				v.Max = t
			}
		}
		if pi >= 0 && row[pi] != nil && count > 0 {
			t, err := toTime(row[pi], loc)
			if err != nil {
				return fmt.Errorf("row %d column %s: %w", i+1, names[pi], err)
			}
			seen[t.In(loc).Format(time.DateOnly)] = true
		}
	}
	if pi >= 0 && !r.IsZero() {
		v.MissingPartitions = r.MissingDays(loc, func(day string) bool { return seen[day] })
	}
	return nil
}

func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case int64:
		return x, nil
	case float64:
		return int64(x), nil
	case *big.Rat:
		f, _ := x.Float64()
		return int64(f), nil
	case string:
		return strconv.ParseInt(x, 10, 64)
	}
	return 0, fmt.Errorf("%v (%T) is not a count", v, v)
}

// toTime reads TIMESTAMP, DATETIME and DATE values; DATETIME and DATE
// carry no zone and are read in the range's.
func toTime(v any, loc *time.Location) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC(), nil
	case civil.Date:
		return x.In(loc).UTC(), nil
	case civil.DateTime:
		return x.In(loc).UTC(), nil
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t.UTC(), nil
		}
		if t, err := time.ParseInLocation(time.DateOnly, x, loc); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%v (%T) is not a time or date", v, v)
}
