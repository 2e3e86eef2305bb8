package postgres

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// inZone is midnight of a date in a zone, as a plan naming that zone means.
func inZone(date, zone string) time.Time {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		panic(err)
	}
	t, err := time.ParseInLocation(time.DateOnly, date, loc)
	if err != nil {
		panic(err)
	}
	return t
}

func TestVerify(t *testing.T) {
	dsn := testDSN(t)
	n := uniqueN()
	table := "bfaudit_v_" + n
	conn := adminConn(t, dsn)
	cleanup(t, conn, "DROP TABLE IF EXISTS public."+table)
	// Events for 1, 2 and 4 March: 3 March is the gap a user must see.
	exec(t, conn,
		"CREATE TABLE public."+table+" (event_time timestamptz, backfill_id text)",
		"INSERT INTO public."+table+" VALUES "+
			"('2026-03-01 01:00+00', 'BF-1'), ('2026-03-01 23:00+00', 'BF-1'), "+
			"('2026-03-02 12:00+00', 'BF-1'), ('2026-03-04 12:00+00', 'BF-1')",
	)
	rng := model.Interval{Start: day("2026-03-01"), End: day("2026-03-05")}
	p := newCollector(t, dsn, func(p *Postgres) { p.StatementTimeout = 300 * time.Millisecond })

	tests := []struct {
		name  string
		query string
		rng   model.Interval
		check func(t *testing.T, v *model.Validation)
	}{
		{
			name:  "per-day rows expose the missing day",
			query: "SELECT event_time::date AS day, count(*) AS count FROM " + table + " GROUP BY 1 ORDER BY 1",
			rng:   rng,
			check: func(t *testing.T, v *model.Validation) {
				if strings.Join(v.MissingPartitions, ",") != "2026-03-03" {
					t.Errorf("missing=%v, want [2026-03-03]", v.MissingPartitions)
				}
				if v.Rows != 4 || !v.Min.Equal(day("2026-03-01")) || !v.Max.Equal(day("2026-03-04")) {
					t.Errorf("rows=%d min=%s max=%s", v.Rows, v.Min, v.Max)
				}
			},
		},
		{
			name:  "full coverage reports no gap",
			query: "SELECT event_time::date AS day, count(*) AS count FROM " + table + " GROUP BY 1",
			rng:   model.Interval{Start: day("2026-03-01"), End: day("2026-03-03")},
			check: func(t *testing.T, v *model.Validation) {
				if len(v.MissingPartitions) != 0 || v.Error != "" {
					t.Errorf("missing=%v error=%q", v.MissingPartitions, v.Error)
				}
			},
		},
		{
			name:  "the range's time zone decides which day an event falls on",
			query: "SELECT date_trunc('day', event_time AT TIME ZONE 'Asia/Tokyo') AT TIME ZONE 'Asia/Tokyo' AS day FROM " + table + " GROUP BY 1",
			// In Tokyo, 01:00Z on 1 March is 10:00 on 1 March, 23:00Z is
			// 2 March, 12:00Z on 2 March is 21:00 on 2 March, and 12:00Z
			// on 4 March is 4 March: 3 March is still the gap.
			rng: model.Interval{Start: inZone("2026-03-01", "Asia/Tokyo"), End: inZone("2026-03-05", "Asia/Tokyo"), TimeZone: "Asia/Tokyo"},
			check: func(t *testing.T, v *model.Validation) {
				if strings.Join(v.MissingPartitions, ",") != "2026-03-03" {
					t.Errorf("missing=%v, want [2026-03-03]", v.MissingPartitions)
				}
			},
		},
		{
			name: "the practice's single-row completeness query",
			query: "SELECT backfill_id, MIN(event_time), MAX(event_time), COUNT(*) FROM " + table +
				" WHERE backfill_id = 'BF-1' GROUP BY backfill_id",
			rng: rng,
			check: func(t *testing.T, v *model.Validation) {
				if v.Rows != 4 || !v.Min.Equal(time.Date(2026, 3, 1, 1, 0, 0, 0, time.UTC)) ||
					!v.Max.Equal(time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)) || v.MissingPartitions != nil {
					t.Errorf("rows=%d min=%s max=%s missing=%v", v.Rows, v.Min, v.Max, v.MissingPartitions)
				}
			},
		},
		{
			name:  "the statement timeout fires",
			query: "SELECT pg_sleep(5)",
			check: func(t *testing.T, v *model.Validation) {
				if !strings.Contains(v.Error, "exceeded statement_timeout 300ms") {
					t.Errorf("error=%q, want the timeout named", v.Error)
				}
			},
		},
		{
			name:  "a query that writes is refused",
			query: "WITH d AS (DELETE FROM " + table + " RETURNING 1) SELECT count(*) FROM d",
			check: func(t *testing.T, v *model.Validation) {
				if !strings.Contains(v.Error, "read-only") {
					t.Errorf("error=%q, want a read-only refusal", v.Error)
				}
				var left int
				if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&left); err != nil || left != 4 {
					t.Errorf("rows left=%d err=%v: the validation query wrote", left, err)
				}
			},
		},
		{
			name:  "a second statement cannot ride along",
			query: "SELECT 1 AS count; DROP TABLE " + table,
			check: func(t *testing.T, v *model.Validation) {
				var left int
				if v.Error == "" {
					t.Errorf("two statements were accepted")
				}
				if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&left); err != nil || left != 4 {
					t.Errorf("rows left=%d err=%v: the second statement ran", left, err)
				}
			},
		},
		{
			name:  "a broken query is evidence, not a source failure",
			query: "SELECT nope FROM " + table,
			check: func(t *testing.T, v *model.Validation) {
				if !strings.Contains(v.Error, "validation query failed on source test-pg") {
					t.Errorf("error=%q", v.Error)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := p.Verify(context.Background(), model.Backfill{ID: "BF-1", ValidationQuery: tc.query, Range: tc.rng})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if v.Query != tc.query || !v.RanAt.Equal(testNow) || v.Source != "test-pg" {
				t.Errorf("query=%q ranAt=%s source=%q", v.Query, v.RanAt, v.Source)
			}
			tc.check(t, v)
		})
	}

	t.Run("an unreachable source is an error", func(t *testing.T) {
		bad := newCollector(t, withUser(t, dsn, url.User("bfaudit_nobody_"+n)))
		v, err := bad.Verify(context.Background(), model.Backfill{ID: "BF-1", ValidationQuery: "SELECT 1"})
		if err == nil || v != nil {
			t.Fatalf("want an error and no validation, got %v, %+v", err, v)
		}
	})
}
