package bigquery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/bqfake"
)

const (
	validationSQL = "SELECT COUNT(*) FROM `shop-analytics.revenue.refunds` WHERE day >= '2026-07-01'"
	replaySQL     = "MERGE `shop-analytics.revenue.refunds` t USING (SELECT * FROM raw.refunds WHERE ts >= @start AND ts < @end) s ON FALSE WHEN NOT MATCHED THEN INSERT ROW"
	gib           = int64(1) << 30
)

func date(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }

// july is the plan's range: 31 days, half-open.
var july = model.Interval{Start: date(7, 1), End: date(8, 1)}

// warehouse is the project shop-analytics: refunds partitioned by day,
// with partitions on both sides of July's edges and the two that are no
// day; fx_rates not partitioned. A dry run of the validation query
// processes 5 GiB, of the replay query 2 GiB per day.
func warehouse(t *testing.T) *bqfake.Server {
	f := bqfake.New(t)
	f.AddTable("shop-analytics.revenue.refunds", bqfake.Table{Partitioning: "DAY", Partitions: []bqfake.Partition{
		{ID: "20260630", Rows: 1000, Bytes: 1 << 20}, // the day before: out
		{ID: "20260701", Rows: 10, Bytes: 100},       // the first day: in
		{ID: "20260715", Rows: 20, Bytes: 200},
		{ID: "20260731", Rows: 30, Bytes: 300},        // the last day: in
		{ID: "20260801", Rows: 1000, Bytes: 1 << 20},  // the end, excluded: out
		{ID: "__NULL__", Rows: 1000, Bytes: 1 << 20},  // rows with no day
		{ID: "__UNPARTITIONED__", Rows: 7, Bytes: 70}, // streamed, not yet placed
	}})
	f.AddTable("shop-analytics.revenue.fx_rates", bqfake.Table{Rows: 42, Bytes: 4200})
	f.DryRun(func(q bqfake.Query) (int64, error) {
		switch {
		case strings.HasPrefix(q.SQL, "SELEKT"):
			return 0, errors.New(`Syntax error: Unexpected identifier "SELEKT" at [1:1]`)
		case q.SQL == validationSQL:
			return 5 * gib, nil
		case q.SQL == replaySQL && q.Params["start"] != "" && q.Params["end"] != "":
			return 2 * gib, nil
		}
		return 0, errors.New("Query parameter 'start' not found at [1:60]")
	})
	return f
}

func estimator(t *testing.T, f *bqfake.Server) *Collector {
	t.Helper()
	c := newCollector(t, f.URL, "shop-analytics")
	c.PricePerTiB = 6.25
	return c
}

func estimate(t *testing.T, c *Collector, b model.Backfill) *model.Estimate {
	t.Helper()
	e, err := c.Estimate(context.Background(), b)
	if err != nil {
		t.Fatalf("Estimate: %v", err)
	}
	if e == nil {
		t.Fatal("Estimate: nil, want an estimate")
	}
	return e
}

// What the replay rewrites: the partitions of July only (half-open: the
// day the range ends is out; __NULL__ and __UNPARTITIONED__ are no day);
// an unpartitioned table whole; a table not found is evidence on its
// line; a table of another project is not this source's to say.
func TestEstimateRewrites(t *testing.T) {
	f := warehouse(t)
	e := estimate(t, estimator(t, f), model.Backfill{ID: "BF-5000", Range: july, Targets: []string{
		"bigquery://shop-analytics/revenue/refunds",
		"shop-analytics.revenue.fx_rates",
		"bigquery://other-project/revenue/refunds",
		"shop-analytics:revenue.gone",
	}})
	want := []model.TableSpan{
		{Table: "shop-analytics.revenue.refunds", Partitioning: "DAY", Partitions: 3, Rows: 60, Bytes: 600},
		{Table: "shop-analytics.revenue.fx_rates", Rows: 42, Bytes: 4200},
		{Table: "shop-analytics.revenue.gone"},
	}
	if len(e.Rewrites) != len(want) {
		t.Fatalf("rewrites: %+v, want %+v", e.Rewrites, want)
	}
	for i, w := range want {
		got := e.Rewrites[i]
		if i == 2 {
			if !strings.Contains(got.Error, "Not found: Table shop-analytics:revenue.gone") {
				t.Errorf("missing table: error %q, want BigQuery's not found", got.Error)
			}
			got.Error = ""
		}
		if got != w {
			t.Errorf("rewrite %d: %+v, want %+v", i, got, w)
		}
	}
	if len(e.Queries) != 0 || e.PricePerTiB != 6.25 {
		t.Errorf("queries %+v, price %g; want none and 6.25", e.Queries, e.PricePerTiB)
	}
	// The partitions are read from the table's own project's metadata,
	// capped, and labelled as the preview's.
	var metadata int
	for _, q := range f.Queries() {
		if strings.Contains(q.SQL, "`shop-analytics.revenue.INFORMATION_SCHEMA.PARTITIONS`") && q.Params["table"] == "refunds" && !q.DryRun {
			metadata++
		}
	}
	if metadata != 1 {
		t.Errorf("%d partition queries for refunds, want 1: %+v", metadata, f.Queries())
	}
}

// A plan naming nothing this source holds, and no query, is no estimate.
func TestEstimateOtherProjectOnly(t *testing.T) {
	f := warehouse(t)
	e, err := estimator(t, f).Estimate(context.Background(), model.Backfill{ID: "BF-5000", Range: july,
		Targets: []string{"bigquery://other-project/revenue/refunds", "postgres://pg/db/public.orders"}})
	if err != nil || e != nil {
		t.Errorf("Estimate: %+v, %v; want nil, nil", e, err)
	}
	if r := f.Requests(); len(r) != 0 {
		t.Errorf("BigQuery was asked about tables it does not hold: %q", r)
	}
}

// Table names are case-sensitive in BigQuery: the target is asked for as
// the plan spells it.
func TestEstimateKeepsTheTablesCase(t *testing.T) {
	f := warehouse(t)
	f.AddTable("shop-analytics.Revenue.FX_Rates", bqfake.Table{Rows: 9, Bytes: 90})
	e := estimate(t, estimator(t, f), model.Backfill{ID: "BF-5000", Range: july, Targets: []string{"bigquery://shop-analytics/Revenue/FX_Rates"}})
	if len(e.Rewrites) != 1 || e.Rewrites[0].Error != "" || e.Rewrites[0].Rows != 9 {
		t.Errorf("rewrites: %+v, want FX_Rates's 9 rows", e.Rewrites)
	}
}

// The validation query is dry-run once; the replay query once per day of
// the range, with that day as @start and @end.
func TestEstimateDryRuns(t *testing.T) {
	f := warehouse(t)
	e := estimate(t, estimator(t, f), model.Backfill{ID: "BF-5000", Range: july, ValidationQuery: validationSQL, ReplayQuery: replaySQL})
	want := []model.QueryCost{
		{Query: "validation_query", Bytes: 5 * gib},
		{Query: "replay_query", Bytes: 31 * 2 * gib, Intervals: 31},
	}
	if len(e.Queries) != 2 || e.Queries[0] != want[0] || e.Queries[1] != want[1] {
		t.Errorf("queries: %+v, want %+v", e.Queries, want)
	}
	days := replayDays(t, f)
	if len(days) != 31 {
		t.Fatalf("%d dry runs of the replay query, want 31 (one per day)", len(days))
	}
	for i, d := range days {
		if start := july.Start.AddDate(0, 0, i); !d[0].Equal(start) || !d[1].Equal(start.AddDate(0, 0, 1)) {
			t.Errorf("dry run %d: @start %s, @end %s; want day %s", i, d[0], d[1], start.Format(time.DateOnly))
		}
	}
}

// A range of 90 days is dry-run on 31 days spread over it, and the sum
// scaled up to 90.
func TestEstimateSamplesALongRange(t *testing.T) {
	f := warehouse(t)
	r := model.Interval{Start: date(7, 1), End: date(7, 1).AddDate(0, 0, 90)}
	e := estimate(t, estimator(t, f), model.Backfill{ID: "BF-5000", Range: r, ReplayQuery: replaySQL})
	if want := (model.QueryCost{Query: "replay_query", Bytes: 90 * 2 * gib, Intervals: 90, Sampled: 31}); len(e.Queries) != 1 || e.Queries[0] != want {
		t.Errorf("queries: %+v, want %+v", e.Queries, want)
	}
	days := replayDays(t, f)
	if len(days) != 31 {
		t.Fatalf("%d dry runs, want 31", len(days))
	}
	seen := map[time.Time]bool{}
	for _, d := range days {
		if seen[d[0]] || d[0].Before(r.Start) || !d[1].After(d[0]) || d[1].After(r.End) {
			t.Errorf("sampled day %s to %s: repeated or outside %s to %s", d[0], d[1], r.Start, r.End)
		}
		seen[d[0]] = true
	}
	if last := days[len(days)-1][0]; last.Before(r.End.AddDate(0, 0, -5)) {
		t.Errorf("the last sampled day is %s: the sample is not spread to the range's end %s", last, r.End)
	}
}

// A range that ends within a day: its last interval is that part of a
// day, and counts as one.
func TestEstimatePartialLastDay(t *testing.T) {
	f := warehouse(t)
	r := model.Interval{Start: date(7, 1), End: date(7, 3).Add(time.Minute)}
	e := estimate(t, estimator(t, f), model.Backfill{ID: "BF-5000", Range: r, ReplayQuery: replaySQL})
	if len(e.Queries) != 1 || e.Queries[0].Intervals != 3 || e.Queries[0].Bytes != 3*2*gib {
		t.Errorf("queries: %+v, want 3 intervals of 2 GiB", e.Queries)
	}
	days := replayDays(t, f)
	if len(days) != 3 || !days[2][1].Equal(r.End) {
		t.Errorf("dry runs: %v, want 3, the last ending at %s", days, r.End)
	}
}

// BigQuery refusing a query (bad SQL) is evidence on the query's line,
// not a failure to ask; so is a replay query of a plan with no range.
func TestEstimateRefusedDryRun(t *testing.T) {
	f := warehouse(t)
	c := estimator(t, f)
	e := estimate(t, c, model.Backfill{ID: "BF-5000", Range: july, ValidationQuery: "SELEKT 1", ReplayQuery: "SELEKT 2"})
	if len(e.Queries) != 2 {
		t.Fatalf("queries: %+v", e.Queries)
	}
	for _, q := range e.Queries {
		if !strings.Contains(q.Error, `Syntax error: Unexpected identifier "SELEKT"`) || q.Bytes != 0 {
			t.Errorf("%s: %+v, want BigQuery's refusal and no bytes", q.Query, q)
		}
	}
	if n := len(replayDays(t, f)); n != 0 {
		t.Errorf("%d replay dry runs after the first refusal", n)
	}
	e = estimate(t, c, model.Backfill{ID: "BF-5001", ReplayQuery: replaySQL})
	if len(e.Queries) != 1 || !strings.Contains(e.Queries[0].Error, "no range") {
		t.Errorf("no range: %+v", e.Queries)
	}
}

// A plan whose validation_source is another source is not dry-run here.
func TestEstimateOtherValidationSource(t *testing.T) {
	f := warehouse(t)
	e, err := estimator(t, f).Estimate(context.Background(), model.Backfill{ID: "BF-5000", Range: july,
		ValidationQuery: validationSQL, ReplayQuery: replaySQL, ValidationSource: "the-other-warehouse"})
	if err != nil || e != nil || len(f.Queries()) != 0 {
		t.Errorf("Estimate: %+v, %v, %d queries; want nil, nil, none", e, err, len(f.Queries()))
	}
}

// BigQuery down: the source could not be asked, which is an error (the
// preview is then incomplete), never an empty estimate; and it is said
// within the per-call timeout, though the query client retries a refused
// connection until its context ends.
func TestEstimateBigQueryDown(t *testing.T) {
	for name, b := range map[string]model.Backfill{
		"targets":    {ID: "BF-5000", Range: july, Targets: []string{"bigquery://shop-analytics/revenue/refunds"}},
		"validation": {ID: "BF-5000", Range: july, ValidationQuery: validationSQL},
		"replay":     {ID: "BF-5000", Range: july, ReplayQuery: replaySQL},
	} {
		f := warehouse(t)
		c := estimator(t, f)
		c.Timeout = 300 * time.Millisecond
		f.Close()
		start := time.Now()
		e, err := c.Estimate(context.Background(), b)
		if err == nil || e != nil {
			t.Errorf("%s: %+v, %v; want an error", name, e, err)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%s: BigQuery down took %s to say, with a per-call timeout of %s", name, took, c.Timeout)
		}
	}
}

// replayDays are the @start and @end of each dry run of the replay
// query, in order.
func replayDays(t *testing.T, f *bqfake.Server) [][2]time.Time {
	t.Helper()
	var out [][2]time.Time
	for _, q := range f.Queries() {
		if q.SQL != replaySQL || !q.DryRun {
			continue
		}
		var d [2]time.Time
		for i, name := range []string{"start", "end"} {
			v, err := time.Parse("2006-01-02 15:04:05.999999-07:00", q.Params[name])
			if err != nil {
				t.Fatalf("@%s: %v", name, err)
			}
			d[i] = v.UTC()
		}
		out = append(out, d)
	}
	return out
}
