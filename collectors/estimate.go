package collectors

import (
	"context"

	"github.com/bfaudit/bfaudit/model"
)

// Estimator is implemented by warehouse collectors that can say, before a
// replay, what a plan will rewrite and cost: the partitions of its
// targets in its range, and dry runs of its queries (`plan check
// --live`). It reads only: no query is run but a dry run or a metadata
// read. A target the source does not hold is left out; nil, nil when it
// holds none and the plan has no query for it. As with Verifier, a query's
// own refusal is evidence (QueryCost.Error, TableSpan.Error); an error
// return means the source could not be asked, and the preview is then
// incomplete.
type Estimator interface {
	Estimate(ctx context.Context, b model.Backfill) (*model.Estimate, error)
}
