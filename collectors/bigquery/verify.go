package bigquery

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/model"
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
	if !c.RunValidation || c.jobs == nil {
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

	q := query{sql: b.ValidationQuery, location: c.Location, labels: map[string]string{"bfaudit": "validation"}, maxBytes: c.MaxBytesBilled}
	var names []string
	var rows [][]any
	err = c.read(ctx, q, func(n []string) { names = n }, func(row []any) error {
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		if queryFault(err) {
			v.Error = gcp.Summarize(err).Error()
			return v, nil
		}
		return nil, fmt.Errorf("bigquery: run %s's validation query: %w", b.ID, gcp.Summarize(err))
	}
	if err := summarize(v, names, rows, b.Range); err != nil {
		v.Error = err.Error()
	}
	return v, nil
}

// dryRun asks BigQuery how many bytes the query would process.
func (c *Collector) dryRun(ctx context.Context, sql string) (int64, error) {
	return c.dryRunQuery(ctx, query{sql: sql, location: c.Location})
}

// queryFault reports whether err is the query's own fault (bad SQL, a
// missing table, bytes billed over the cap): evidence about the plan, not
// a failure to reach BigQuery.
func queryFault(err error) bool {
	if code := gcp.Code(err); code != 0 {
		return code == http.StatusBadRequest || code == http.StatusNotFound
	}
	var qe *queryError
	return errors.As(err, &qe)
}
