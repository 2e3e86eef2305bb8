package bigquery

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

const partitionSchema = `[{"name":"day","type":"DATE","mode":"NULLABLE"},
	{"name":"min_event_time","type":"TIMESTAMP","mode":"NULLABLE"},
	{"name":"max_event_time","type":"TIMESTAMP","mode":"NULLABLE"},
	{"name":"row_count","type":"INTEGER","mode":"NULLABLE"}]`

// partitionRow is one result row; TIMESTAMP cells are epoch microseconds.
func partitionRow(day string, minT, maxT time.Time, n int) string {
	return fmt.Sprintf(`{"f":[{"v":%q},{"v":"%d"},{"v":"%d"},{"v":"%d"}]}`, day, minT.UnixMicro(), maxT.UnixMicro(), n)
}

func day(d, h int) time.Time { return time.Date(2026, 1, d, h, 0, 0, 0, time.UTC) }

// A four-day range [Jan 1, Jan 5) whose Jan 3 partition is missing and
// whose Jan 4 partition came back empty.
func gappyResult(f *fakeBQ) {
	f.schema = partitionSchema
	f.rows = "[" + strings.Join([]string{
		partitionRow("2026-01-01", day(1, 0), day(1, 23), 100),
		partitionRow("2026-01-02", day(2, 0), day(2, 23), 120),
		`{"f":[{"v":"2026-01-04"},{"v":null},{"v":null},{"v":"0"}]}`,
	}, ",") + "]"
	f.dryRunBytes = 5 << 20
}

var backfill = model.Backfill{
	ID:              "BF-1234",
	ValidationQuery: "SELECT DATE(event_time) AS day, MIN(event_time) AS min_event_time, MAX(event_time) AS max_event_time, COUNT(*) AS row_count FROM `p-one.analytics.bf_1234_events_fix` GROUP BY day",
	Range:           model.Interval{Start: day(1, 0), End: day(5, 0)},
}

func verifier(t *testing.T, f *fakeBQ) *Collector {
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	c.RunValidation = true
	c.jobs = nil
	if err := c.Init(testEnv()); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestVerifyMissingPartition(t *testing.T) {
	for _, async := range []bool{false, true} {
		name := "jobs.query answers at once"
		if async {
			name = "jobs.getQueryResults fallback"
		}
		t.Run(name, func(t *testing.T) {
			f := newFakeBQ(t)
			gappyResult(f)
			f.async = async
			c := verifier(t, f)
			v, err := c.Verify(context.Background(), backfill)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if v.Error != "" {
				t.Fatalf("validation error: %s", v.Error)
			}
			if got := strings.Join(v.MissingPartitions, ","); got != "2026-01-03,2026-01-04" {
				t.Errorf("missing = %q; want 2026-01-03,2026-01-04 (absent, and empty)", got)
			}
			if v.Rows != 220 || !v.Min.Equal(day(1, 0)) || !v.Max.Equal(day(2, 23)) {
				t.Errorf("rows/min/max = %d/%v/%v", v.Rows, v.Min, v.Max)
			}
			if v.BytesProcessed != 5<<20 || !v.RanAt.Equal(now) || v.Query != backfill.ValidationQuery {
				t.Errorf("bytes/ran_at/query = %d/%v/%q", v.BytesProcessed, v.RanAt, v.Query)
			}
			if len(f.insertBodies) != 1 || len(f.queryBodies) != 1 {
				t.Fatalf("want one dry run and one query, got %d and %d", len(f.insertBodies), len(f.queryBodies))
			}
			if got := f.queryBodies[0]["maximumBytesBilled"]; got != fmt.Sprint(oneGiB) {
				t.Errorf("maximumBytesBilled sent = %v; want %d", got, oneGiB)
			}
			if async && f.count("/queries/job_val1") == 0 {
				t.Error("getQueryResults was not used")
			}
		})
	}
}

// A query BigQuery never finishes ends at query_timeout, asked again at
// most every pollPause even when BigQuery answers "not done" at once.
func TestQueryNeverDoneEndsAtQueryTimeout(t *testing.T) {
	f := newFakeBQ(t)
	gappyResult(f)
	f.async, f.neverDone = true, true
	c := verifier(t, f)
	c.QueryTimeout = time.Second
	start := time.Now()
	_, err := c.Verify(context.Background(), backfill)
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("error %v; want the query_timeout's deadline", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %s; query_timeout is 1s", took)
	}
	if n := f.count("/queries/job_val1"); n < 2 || n > int(time.Second/pollPause)+2 {
		t.Errorf("%d polls in 1s; want a few, at most one every %s", n, pollPause)
	}
}

func TestVerifyRefusedForCost(t *testing.T) {
	f := newFakeBQ(t)
	gappyResult(f)
	f.dryRunBytes = 5 * oneGiB
	c := verifier(t, f)
	v, err := c.Verify(context.Background(), backfill)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if !strings.Contains(v.Error, "refused") || !strings.Contains(v.Error, fmt.Sprint(5*oneGiB)) || v.BytesProcessed != 5*oneGiB {
		t.Errorf("error/bytes = %q/%d; want a refusal naming the estimate", v.Error, v.BytesProcessed)
	}
	if len(f.queryBodies) != 0 {
		t.Error("the query ran although the dry run was over the limit")
	}
	if len(v.MissingPartitions) != 0 || v.Rows != 0 {
		t.Error("a refused query must not report coverage")
	}
}

func TestVerifySingleRow(t *testing.T) {
	f := newFakeBQ(t)
	f.schema = `[{"name":"backfill_id","type":"STRING"},{"name":"min","type":"TIMESTAMP"},{"name":"max","type":"TIMESTAMP"},{"name":"count","type":"INTEGER"}]`
	f.rows = fmt.Sprintf(`[{"f":[{"v":"BF-1234"},{"v":"%d"},{"v":"%d"},{"v":"4000"}]}]`, day(1, 0).UnixMicro(), day(3, 12).UnixMicro())
	c := verifier(t, f)
	v, err := c.Verify(context.Background(), backfill)
	if err != nil || v.Error != "" {
		t.Fatalf("Verify: %v %q", err, v.Error)
	}
	if v.Rows != 4000 || !v.Min.Equal(day(1, 0)) || !v.Max.Equal(day(3, 12)) || v.MissingPartitions != nil {
		t.Errorf("got %+v", v)
	}
}

func TestVerifyRefusesWhenDisabled(t *testing.T) {
	f := newFakeBQ(t)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	_, err := c.Verify(context.Background(), backfill)
	if err == nil || !strings.Contains(err.Error(), "run_validation") {
		t.Fatalf("want an error naming run_validation, got %v", err)
	}
	if len(f.requests) != 0 {
		t.Errorf("BigQuery was called: %v", f.requests)
	}
}
