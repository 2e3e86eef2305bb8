package bigquery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	bq "google.golang.org/api/bigquery/v2"
)

// Queries go through the REST API's generated client, as the listing
// does, with the BigQuery scope: dry runs through jobs.insert, queries
// through jobs.query and jobs.getQueryResults. (cloud.google.com/go/bigquery
// would read the same answers, but brings Apache Arrow and its JSON
// library, which cost every run of bfaudit 11 MB of heap at start.)

// query is one query: its SQL, named parameters, location, labels and the
// bytes BigQuery may bill (0: no cap, for dry runs).
type query struct {
	sql      string
	params   []*bq.QueryParameter
	location string
	labels   map[string]string
	maxBytes int64
}

var standardSQL = false // useLegacySql: BigQuery's default is legacy SQL

// pollPause is the least time between two asks of a query not yet done.
const pollPause = 250 * time.Millisecond

// stringParam, intParam and timeParam are named query parameters.
func stringParam(name, v string) *bq.QueryParameter { return param(name, "STRING", v) }

func intParam(name string, v int64) *bq.QueryParameter {
	return param(name, "INT64", strconv.FormatInt(v, 10))
}

func timeParam(name string, t time.Time) *bq.QueryParameter {
	return param(name, "TIMESTAMP", t.UTC().Format("2006-01-02 15:04:05.999999-07:00"))
}

func param(name, typ, v string) *bq.QueryParameter {
	return &bq.QueryParameter{Name: name, ParameterType: &bq.QueryParameterType{Type: typ}, ParameterValue: &bq.QueryParameterValue{Value: v}}
}

// queryError is a query's own refusal, as a job's status gives it.
type queryError struct{ reason, message string }

func (e *queryError) Error() string {
	if e.reason == "" {
		return e.message
	}
	return e.reason + ": " + e.message
}

// dryRunQuery asks how many bytes q would process: a dry-run job, which
// costs nothing and is retried within the budget, each try within the
// call timeout.
func (c *Collector) dryRunQuery(ctx context.Context, q query) (int64, error) {
	job, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*bq.Job, error) {
		return c.jobs.Jobs.Insert(c.BillingProject, &bq.Job{
			JobReference: &bq.JobReference{ProjectId: c.BillingProject, Location: q.location},
			Configuration: &bq.JobConfiguration{DryRun: true, Labels: q.labels, Query: &bq.JobConfigurationQuery{
				Query: q.sql, UseLegacySql: &standardSQL, QueryParameters: q.params, ParameterMode: parameterMode(q)}},
		}).Context(ctx).Do()
	})
	switch {
	case err != nil:
		return 0, err
	case job.Status != nil && job.Status.ErrorResult != nil:
		return 0, &queryError{job.Status.ErrorResult.Reason, job.Status.ErrorResult.Message}
	case job.Statistics == nil:
		return 0, errors.New("dry run answered without statistics")
	}
	return job.Statistics.TotalBytesProcessed, nil
}

func parameterMode(q query) string {
	if len(q.params) == 0 {
		return ""
	}
	return "NAMED"
}

// read runs q and hands each row of its result to row, its cells typed
// by the result's schema (cell), after the column names. The query is
// asked once (a request id makes a retry the same job), then its result
// is read page by page, each call within the call timeout; ctx bounds the
// whole (query_timeout).
func (c *Collector) read(ctx context.Context, q query, columns func(names []string), row func(cells []any) error) error {
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	// BigQuery answers within wait, done or not: half the call's timeout,
	// so that its "not done" arrives before the call is given up.
	wait := max(c.Timeout/2, 100*time.Millisecond).Milliseconds()
	req := &bq.QueryRequest{Query: q.sql, UseLegacySql: &standardSQL, Location: q.location, Labels: q.labels,
		MaximumBytesBilled: q.maxBytes, QueryParameters: q.params, ParameterMode: parameterMode(q),
		FormatOptions: &bq.DataFormatOptions{UseInt64Timestamp: true}, RequestId: hex.EncodeToString(id), TimeoutMs: wait}
	first, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*bq.QueryResponse, error) {
		return c.jobs.Jobs.Query(c.BillingProject, req).Context(ctx).Do()
	})
	if err != nil {
		return err
	}
	page := &bq.GetQueryResultsResponse{JobComplete: first.JobComplete, JobReference: first.JobReference,
		Schema: first.Schema, Rows: first.Rows, PageToken: first.PageToken}
	pages := remote.Pager{What: "bigquery.jobs.getQueryResults", Max: c.maxPages}
	named, polled := false, false
	for {
		if page.JobComplete {
			if page.Schema == nil {
				return errors.New("a finished query answered without its schema")
			}
			if !named {
				names := make([]string, len(page.Schema.Fields))
				for i, f := range page.Schema.Fields {
					names[i] = f.Name
				}
				columns(names)
				named = true
			}
			for i, r := range page.Rows {
				cells, err := rowCells(page.Schema.Fields, r)
				if err != nil {
					return fmt.Errorf("row %d: %w", i+1, err)
				}
				if err := row(cells); err != nil {
					return err
				}
			}
			if err := pages.Next(page.PageToken); err != nil || page.PageToken == "" {
				return err
			}
		}
		ref := page.JobReference
		if ref == nil || ref.JobId == "" {
			return errors.New("a query answered without its job")
		}
		if !page.JobComplete && polled {
			// BigQuery waits up to timeoutMs before it answers "not done";
			// one that answers at once is not asked again at once.
			if err := remote.SleepContext(ctx, pollPause); err != nil {
				return err
			}
		}
		polled = !page.JobComplete
		token := page.PageToken
		page, err = gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*bq.GetQueryResultsResponse, error) {
			return c.jobs.Jobs.GetQueryResults(ref.ProjectId, ref.JobId).Location(ref.Location).PageToken(token).
				TimeoutMs(wait).FormatOptionsUseInt64Timestamp(true).Context(ctx).Do()
		})
		if err != nil {
			return err
		}
		if page.JobReference == nil {
			page.JobReference = ref
		}
	}
}

// rowCells types a row's cells by their fields.
func rowCells(fields []*bq.TableFieldSchema, r *bq.TableRow) ([]any, error) {
	if r == nil || len(r.F) != len(fields) {
		return nil, fmt.Errorf("%d cells for %d columns", cellCount(r), len(fields))
	}
	cells := make([]any, len(fields))
	for i, f := range fields {
		v, err := cell(f, r.F[i].V)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		cells[i] = v
	}
	return cells, nil
}

func cellCount(r *bq.TableRow) int {
	if r == nil {
		return 0
	}
	return len(r.F)
}

// cell types one cell as the REST API writes it ({"v": ...}): a REPEATED
// field is a []any of its values, a RECORD a []any of its fields' values,
// INTEGER an int64, FLOAT a float64, NUMERIC a *big.Rat, BOOLEAN a bool,
// TIMESTAMP a time.Time (epoch microseconds, as asked, or seconds), DATE
// and DATETIME civil dates and times; null is nil and the rest strings.
func cell(f *bq.TableFieldSchema, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if f.Mode == "REPEATED" {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("a repeated value is %T", v)
		}
		one := *f
		one.Mode = ""
		out := make([]any, len(list))
		for i, e := range list {
			m, _ := e.(map[string]any)
			x, err := cell(&one, m["v"])
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	if f.Type == "RECORD" || f.Type == "STRUCT" {
		m, _ := v.(map[string]any)
		fs, _ := m["f"].([]any)
		if len(fs) != len(f.Fields) {
			return nil, fmt.Errorf("a record of %d values for %d fields", len(fs), len(f.Fields))
		}
		out := make([]any, len(fs))
		for i, e := range fs {
			m, _ := e.(map[string]any)
			x, err := cell(f.Fields[i], m["v"])
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("a %s value is %T", f.Type, v)
	}
	switch f.Type {
	case "INTEGER", "INT64":
		return strconv.ParseInt(s, 10, 64)
	case "FLOAT", "FLOAT64":
		return strconv.ParseFloat(s, 64)
	case "NUMERIC", "BIGNUMERIC":
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return r, nil
	case "BOOLEAN", "BOOL":
		return strconv.ParseBool(s)
	case "TIMESTAMP":
		if !strings.ContainsAny(s, ".eE") {
			us, err := strconv.ParseInt(s, 10, 64)
			return time.UnixMicro(us).UTC(), err
		}
		secs, err := strconv.ParseFloat(s, 64)
		return time.UnixMicro(int64(secs * 1e6)).UTC(), err
	case "DATE":
		return civil.ParseDate(s)
	case "DATETIME":
		return civil.ParseDateTime(s)
	}
	return s, nil
}
