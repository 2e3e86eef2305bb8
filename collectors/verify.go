package collectors

import (
	"context"

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
type Verifier interface {
	Verify(ctx context.Context, b model.Backfill) (*model.Validation, error)
}
