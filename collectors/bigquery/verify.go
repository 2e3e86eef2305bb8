package bigquery

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	bqclient "cloud.google.com/go/bigquery"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/model"
	"google.golang.org/api/iterator"
)

var _ collectors.Verifier = (*Collector)(nil)

// Verify runs a backfill's validation query (rule BF013) under a cost
// guard: a dry run first, refused when it would process more than
// max_bytes_billed, then the real query with maximumBytesBilled set so
// BigQuery itself refuses to bill more. The result is read by the
// collectors.Verifier convention and compared with the declared range.
//
// A refused or failing query is evidence, returned in Validation.Error;
// an error return means BigQuery could not be asked (disabled, no access,
// unreachable).
func (c *Collector) Verify(ctx context.Context, b model.Backfill) (*model.Validation, error) {
	if !c.RunValidation || c.client == nil {
		return nil, fmt.Errorf("bigquery: validation queries are disabled; set run_validation: true on this source to verify %s", b.ID)
	}
	if b.ValidationQuery == "" {
		return nil, fmt.Errorf("bigquery: backfill %s has no validation_query", b.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, c.QueryTimeout)
	defer cancel()
	v := &model.Validation{Query: b.ValidationQuery, RanAt: c.now().UTC()}

	estimate, err := c.dryRun(ctx, b.ValidationQuery)
	if err != nil {
		if queryFault(err) {
			v.Error = "dry run: " + gcp.Summarize(err).Error()
			return v, nil
		}
		return nil, fmt.Errorf("bigquery: dry run of %s's validation query: %w", b.ID, gcp.Summarize(err))
	}
	v.BytesProcessed = estimate
	if estimate > c.MaxBytesBilled {
		v.Error = fmt.Sprintf("refused: the dry run says the query would process %d bytes, above max_bytes_billed %d", estimate, c.MaxBytesBilled)
		return v, nil
	}

	q := c.client.Query(b.ValidationQuery)
	q.MaxBytesBilled = c.MaxBytesBilled
	q.Location = c.Location
	q.Labels = map[string]string{"bfaudit": "validation"}
	it, err := q.Read(ctx)
	if err != nil {
		if queryFault(err) {
			v.Error = gcp.Summarize(err).Error()
			return v, nil
		}
		return nil, fmt.Errorf("bigquery: run %s's validation query: %w", b.ID, gcp.Summarize(err))
	}
	var rows [][]bqclient.Value
	for {
		var row []bqclient.Value
		err := it.Next(&row)
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			if queryFault(err) {
				v.Error = gcp.Summarize(err).Error()
				return v, nil
			}
			return nil, fmt.Errorf("bigquery: read %s's validation result: %w", b.ID, gcp.Summarize(err))
		}
		rows = append(rows, row)
	}
	names := make([]string, len(it.Schema))
	for i, f := range it.Schema {
		names[i] = f.Name
	}
	if err := summarize(v, names, rows, b.Range); err != nil {
		v.Error = err.Error()
	}
	return v, nil
}

// dryRun asks BigQuery how many bytes the query would process. Quota and
// server errors are retried here: a dry run costs nothing.
func (c *Collector) dryRun(ctx context.Context, sql string) (int64, error) {
	return c.dryRunQuery(ctx, func() *bqclient.Query {
		q := c.client.Query(sql)
		q.Location = c.Location
		return q
	})
}

// dryRunQuery dry-runs the query build makes (a fresh one per try), each
// try within the per-call timeout: the client retries a BigQuery that
// does not answer (refused connections, 5xx) until its context ends.
func (c *Collector) dryRunQuery(ctx context.Context, build func() *bqclient.Query) (int64, error) {
	st, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*bqclient.JobStatus, error) {
		q := build()
		q.DryRun = true
		job, err := q.Run(ctx)
		if err != nil {
			return nil, err
		}
		return job.LastStatus(), nil
	})
	switch {
	case err != nil:
		return 0, err
	case st == nil || st.Statistics == nil:
		return 0, errors.New("dry run answered without statistics")
	case st.Err() != nil:
		return 0, st.Err() // the query's own fault (a *bqclient.Error)
	}
	return st.Statistics.TotalBytesProcessed, nil
}

// queryFault reports whether err is the query's own fault (bad SQL, a
// missing table, bytes billed over the cap): evidence about the plan, not
// a failure to reach BigQuery.
func queryFault(err error) bool {
	if code := gcp.Code(err); code != 0 {
		return code == http.StatusBadRequest || code == http.StatusNotFound
	}
	var be *bqclient.Error
	return errors.As(err, &be)
}
