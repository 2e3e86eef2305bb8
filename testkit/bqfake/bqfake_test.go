package bqfake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	bqclient "cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/bfaudit/bfaudit/testkit/bqfake"
)

// clients are the two the collector uses, pointed at the fake.
func clients(t *testing.T, f *bqfake.Server) (*bq.Service, *bqclient.Client) {
	t.Helper()
	ctx := context.Background()
	opts := []option.ClientOption{option.WithEndpoint(f.URL + "/bigquery/v2/"), option.WithoutAuthentication()}
	svc, err := bq.NewService(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	client, err := bqclient.NewClient(ctx, "billing", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return svc, client
}

func estate(t *testing.T) *bqfake.Server {
	f := bqfake.New(t)
	f.AddTable("shop.revenue.refunds", bqfake.Table{Partitioning: "DAY", Partitions: []bqfake.Partition{
		{ID: "20260630", Rows: 5, Bytes: 500}, {ID: "20260701", Rows: 10, Bytes: 1000}, {ID: "__NULL__", Rows: 1, Bytes: 100}}})
	f.AddTable("shop.revenue.fx_rates", bqfake.Table{Rows: 42, Bytes: 4200})
	return f
}

func TestTablesGet(t *testing.T) {
	f := estate(t)
	svc, _ := clients(t, f)
	ctx := context.Background()
	tb, err := svc.Tables.Get("shop", "revenue", "refunds").View("STORAGE_STATS").Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if tb.TimePartitioning == nil || tb.TimePartitioning.Type != "DAY" || tb.NumRows != 16 || tb.NumBytes != 1600 {
		t.Errorf("refunds: partitioning %+v, %d rows, %d bytes; want DAY, 16, 1600", tb.TimePartitioning, tb.NumRows, tb.NumBytes)
	}
	tb, err = svc.Tables.Get("shop", "revenue", "fx_rates").Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if tb.TimePartitioning != nil || tb.NumRows != 42 || tb.NumBytes != 4200 {
		t.Errorf("fx_rates: partitioning %+v, %d rows, %d bytes; want none, 42, 4200", tb.TimePartitioning, tb.NumRows, tb.NumBytes)
	}
	_, err = svc.Tables.Get("shop", "revenue", "nope").Context(ctx).Do()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != http.StatusNotFound || !strings.Contains(ge.Message, "Not found: Table shop:revenue.nope") {
		t.Errorf("unknown table: %v, want 404 naming it", err)
	}
	list, err := svc.Tables.List("shop", "revenue").Context(ctx).Do()
	if err != nil || len(list.Tables) != 2 {
		t.Errorf("tables.list: %v, %+v", err, list)
	}
}

func TestDryRun(t *testing.T) {
	f := estate(t)
	f.DryRun(func(q bqfake.Query) (int64, error) {
		if strings.Contains(q.SQL, "SELEKT") {
			return 0, errors.New("Syntax error: Unexpected identifier \"SELEKT\" at [1:1]")
		}
		return int64(len(q.SQL)) << 20, nil
	})
	_, client := clients(t, f)
	ctx := context.Background()
	q := client.Query("SELECT * FROM shop.revenue.refunds WHERE day >= @start AND day < @end")
	q.DryRun = true
	q.Parameters = []bqclient.QueryParameter{{Name: "start", Value: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)}, {Name: "end", Value: time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)}}
	job, err := q.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st := job.LastStatus()
	if st.Err() != nil || st.Statistics.TotalBytesProcessed != int64(len(q.Q))<<20 {
		t.Errorf("dry run: %v, %d bytes", st.Err(), st.Statistics.TotalBytesProcessed)
	}
	got := f.Queries()
	if len(got) != 1 || !got[0].DryRun {
		t.Fatalf("queries: %+v", got)
	}
	if got[0].Params["start"] != "2026-07-01 00:00:00+00:00" || got[0].Params["end"] != "2026-07-02 00:00:00+00:00" {
		t.Errorf("parameters as received: %v", got[0].Params)
	}
	bad := client.Query("SELEKT 1")
	bad.DryRun = true
	_, err = bad.Run(ctx)
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != 400 || !strings.Contains(ge.Message, "SELEKT") {
		t.Errorf("bad SQL: %v, want 400 saying why", err)
	}
}

func TestPartitionsQuery(t *testing.T) {
	f := estate(t)
	_, client := clients(t, f)
	ctx := context.Background()
	q := client.Query("SELECT partition_id, total_rows, total_logical_bytes FROM `shop.revenue.INFORMATION_SCHEMA.PARTITIONS` WHERE table_name = @table")
	q.Parameters = []bqclient.QueryParameter{{Name: "table", Value: "refunds"}}
	q.MaxBytesBilled = 1 << 30
	q.Labels = map[string]string{"bfaudit": "plan-preview"}
	it, err := q.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		var row struct {
			ID    string `bigquery:"partition_id"`
			Rows  int64  `bigquery:"total_rows"`
			Bytes int64  `bigquery:"total_logical_bytes"`
		}
		err := it.Next(&row)
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %d %d", row.ID, row.Rows, row.Bytes))
	}
	if strings.Join(got, ",") != "20260630 5 500,20260701 10 1000,__NULL__ 1 100" {
		t.Errorf("rows: %q", got)
	}
}

func TestPartitionsQueryAsAJob(t *testing.T) {
	f := estate(t)
	_, client := clients(t, f)
	ctx := context.Background()
	q := client.Query("SELECT partition_id, total_rows, total_logical_bytes FROM `shop.revenue.INFORMATION_SCHEMA.PARTITIONS` WHERE table_name = @table")
	q.Parameters = []bqclient.QueryParameter{{Name: "table", Value: "refunds"}}
	job, err := q.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	it, err := job.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		var row []bqclient.Value
		err := it.Next(&row)
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d rows, want 3", n)
	}
	want := []string{"bigquery.jobs.insert: POST", "bigquery.jobs.getQueryResults: GET", "bigquery.jobs.getQueryResults: GET"}
	if got := f.Requests(); len(got) != len(want) {
		t.Errorf("requests: %q", got)
	} else {
		for i := range want {
			if !strings.HasPrefix(got[i], want[i]) {
				t.Errorf("request %d: %q, want %s", i, got[i], want[i])
			}
		}
	}
}

// Only the partitions query runs; any other is refused as BigQuery
// refuses a query, and a dataset that is not there is not found.
func TestOtherQueriesAreRefused(t *testing.T) {
	f := estate(t)
	_, client := clients(t, f)
	ctx := context.Background()
	for sql, want := range map[string]int{
		"SELECT COUNT(*) FROM shop.revenue.refunds": 400,
		"SELECT partition_id, total_rows, total_logical_bytes FROM `shop.nope.INFORMATION_SCHEMA.PARTITIONS` WHERE table_name = @table": 404,
	} {
		q := client.Query(sql)
		q.Parameters = []bqclient.QueryParameter{{Name: "table", Value: "refunds"}}
		_, err := q.Read(ctx)
		var ge *googleapi.Error
		if !errors.As(err, &ge) || ge.Code != want {
			t.Errorf("%s: %v, want %d", sql, err, want)
		}
	}
}

// A request the description does not allow is answered 400 naming what
// is wrong, and reported with its method, field and request.
func TestBrokenRequestsAreRefused(t *testing.T) {
	f := estate(t)
	for _, c := range []struct{ method, path, body, want string }{
		{"GET", "/bigquery/v2/projects/shop/datasets/revenue/tables/refunds?view=STORAGE_STATS&selectFields=a", "",
			`bigquery.tables.get: query parameter "selectFields" is not one the method declares`},
		{"POST", "/bigquery/v2/projects/billing/queries?alt=json", `{"query":"SELECT 1","dryRun":true,"maxBytesBilled":"10"}`,
			`bigquery.jobs.query: request body/maxBytesBilled: field "maxBytesBilled" is not in QueryRequest`},
	} {
		req, err := http.NewRequest(c.method, f.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 400 || !strings.Contains(answer.Error.Message, c.want) {
			t.Errorf("%s %s: %d %q (%v), want 400 saying %q", c.method, c.path, resp.StatusCode, answer.Error.Message, err, c.want)
		}
		v := f.TakeViolations()
		if len(v) != 1 || !strings.Contains(v[0], c.want) || !strings.Contains(v[0], "(request "+c.method+" "+c.path+")") {
			t.Errorf("violations %q, want one saying %q about the request", v, c.want)
		}
	}
	if q := f.Queries(); len(q) != 0 {
		t.Errorf("a refused request reached the fake: %+v", q)
	}
}

// Closed, BigQuery is down: calls fail, and not as "not found".
func TestClosedIsDown(t *testing.T) {
	f := estate(t)
	svc, _ := clients(t, f)
	f.Close()
	_, err := svc.Tables.Get("shop", "revenue", "refunds").Do()
	var ge *googleapi.Error
	if err == nil || errors.As(err, &ge) {
		t.Errorf("tables.get on a closed fake: %v, want a transport error", err)
	}
}

// recordingTB keeps what the fake reports at the end of a test.
type recordingTB struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// A break left untaken fails the test when it ends.
func TestUntakenViolationsFailTheTest(t *testing.T) {
	rec := &recordingTB{TB: t}
	f := bqfake.New(rec)
	resp, err := http.Get(f.URL + "/bigquery/v2/projects/shop/datasets?all=yes")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range rec.cleanups {
		c()
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], `bigquery.datasets.list: query parameter all="yes": not a boolean (request GET /bigquery/v2/projects/shop/datasets?all=yes)`) {
		t.Errorf("reported at the end: %q", rec.errors)
	}
}
