package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// Memory is what an audit remembers between runs: the history store. It
// lets a run in which some unit did not answer keep what that unit last
// said, instead of judging from what is left.
type Memory interface {
	// Restore adds to the estate the last known description of each
	// backfill whose plan did not answer.
	Restore(ctx context.Context, est *model.Estate) ([]string, error)
	// Carry adds to the report the open findings not re-checked this run
	// because a unit they rest on did not answer.
	Carry(ctx context.Context, r *model.Report) (int, error)
}

// EvaluateWith is Evaluate with a memory: last known descriptions are put
// back before the rules run, and unread findings carried after, so the
// report, the lifecycle and every sink see the same last known state.
func EvaluateWith(ctx context.Context, est *model.Estate, sel *correlate.Selector, eng *rules.Engine, now time.Time, mem Memory) (*Audit, error) {
	if mem == nil {
		return Evaluate(est, sel, eng, now), nil
	}
	if _, err := mem.Restore(ctx, est); err != nil {
		return Evaluate(est, sel, eng, now), fmt.Errorf("restore last known backfills: %w", err)
	}
	a := evaluate(est, sel, eng, now, true)
	n, err := mem.Carry(ctx, a.Report)
	if n > 0 {
		rules.SortFindings(a.Report.Findings)
		a.Refresh()
	}
	if err != nil {
		return a, fmt.Errorf("carry unread findings: %w", err)
	}
	return a, nil
}
