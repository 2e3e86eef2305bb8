package collectors

import (
	"context"
	"errors"

	"github.com/bfaudit/bfaudit/model"
)

// Verifier is implemented by warehouse collectors that can run a backfill's
// validation query (rule BF013). The audit calls it after collection for
// each backfill whose plan names this source in `validation_source`.
//
// The query's result is read by convention: one row per partition (a
// column named partition, day or date) or a single row, with columns for the
// earliest and latest event time (min / min_time / min_event_time, max /
// max_time / max_event_time) and a row count (count / rows / row_count).
// The returned Validation carries that evidence and, where partitions were
// returned, the days of the declared range that had none.
//
// A failure of the query itself (syntax, a refused write, the server's
// statement timeout) is evidence: it comes back in Validation.Error with a
// nil error. A non-nil error means the source could not be asked: it could
// not be reached, or the connection was lost or went silent during the
// query. The caller keeps it as the validation's error AND records it on
// the source's coverage with RecordVerifyError, so the source is degraded
// and the run incomplete (exit 3): a source that stopped answering is not
// "ok". Return a *VerifyError to name the unit that failed.
type Verifier interface {
	Verify(ctx context.Context, b model.Backfill) (*model.Validation, error)
}

// VerifyError is a Verify failure of the source, at the unit Scope (a
// scope path such as JoinScope(database, "validation", backfillID); empty
// for the whole source).
type VerifyError struct {
	Scope string
	Err   error
}

func (e *VerifyError) Error() string { return e.Err.Error() }
func (e *VerifyError) Unwrap() error { return e.Err }

// RecordVerifyError records a Verify error on source's coverage in est:
// an error at the unit the VerifyError names (the whole source for any
// other error), and the status degraded unless it already failed.
func RecordVerifyError(est *model.Estate, source string, err error) {
	if err == nil {
		return
	}
	scope := ""
	var ve *VerifyError
	if errors.As(err, &ve) {
		scope = ve.Scope
	}
	for i := range est.Coverage {
		c := &est.Coverage[i]
		if c.Source != source {
			continue
		}
		c.Errors = append(c.Errors, model.ScopeError{Scope: scope, Error: err.Error()})
		if !c.Failed() {
			c.Status = model.CoverageDegraded
		}
		return
	}
	est.Coverage = append(est.Coverage, model.Coverage{Source: source, Status: model.CoverageDegraded,
		Errors: []model.ScopeError{{Scope: scope, Error: err.Error()}}})
}
