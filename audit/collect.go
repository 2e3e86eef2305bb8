// Package audit runs bfaudit's pipeline: collect → correlate → evaluate,
// producing the model.Report every writer and sink renders.
package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

// planSourceType is the collector whose plans declare assets; it runs
// first so the other collectors can keep the assets plans declare.
const planSourceType = "records"

// Collect runs every source and returns the estate. Plan sources run first
// and their declared assets go into the selector the other collectors
// filter with; then the rest run concurrently, at most limit at a time;
// then validation queries run on the sources plans name. When ctx ends
// (deadline or signal) it returns what was collected, unfinished sources
// marked failed, with ctx's error.
func Collect(ctx context.Context, instances []collectors.Instance, sel *correlate.Selector, limit int, now time.Time) (*model.Estate, error) {
	return collectWith(ctx, instances, sel, limit, now, func(ctx context.Context, est *model.Estate) {
		verify(ctx, est, instances)
	})
}

// collectWith is Collect with its validation step handed in (a shard runs
// only its share of the validation queries).
func collectWith(ctx context.Context, instances []collectors.Instance, sel *correlate.Selector, limit int, now time.Time,
	verifyAll func(context.Context, *model.Estate)) (*model.Estate, error) {
	var plans, rest []collectors.Instance
	for _, in := range instances {
		if in.Type == planSourceType {
			plans = append(plans, in)
		} else {
			rest = append(rest, in)
		}
	}
	first, err1 := collectors.Run(ctx, plans, limit, now)
	sel.AddAssets(first.Backfills)
	second, err2 := collectors.Run(ctx, rest, limit, now)
	est := &model.Estate{
		Version: model.EstateVersion, CollectedAt: now,
		Backfills: append(first.Backfills, second.Backfills...),
		Artifacts: append(first.Artifacts, second.Artifacts...),
		Records:   append(first.Records, second.Records...),
		Coverage:  append(first.Coverage, second.Coverage...),
		Edges:     append(first.Edges, second.Edges...),
		Builds:    append(first.Builds, second.Builds...),
	}
	if err := cmp.Or(err1, err2); err != nil {
		collectors.Sort(est)
		return est, err
	}
	verifyAll(ctx, est)
	collectors.Sort(est)
	return est, nil
}

// verify runs each plan's validation query on the source the plan names,
// keeping the result (or the error) as evidence on the plan.
func verify(ctx context.Context, est *model.Estate, instances []collectors.Instance) {
	byName := map[string]collectors.Instance{}
	for _, in := range instances {
		byName[in.Name] = in
	}
	for i := range est.Backfills {
		b := &est.Backfills[i]
		if b.ValidationQuery == "" || b.ValidationSource == "" || b.Validation != nil {
			continue
		}
		in, ok := byName[b.ValidationSource]
		if !ok {
			b.Validation = &model.Validation{Query: b.ValidationQuery, Source: b.ValidationSource,
				Error: fmt.Sprintf("validation_source %q is not a configured source", b.ValidationSource)}
			continue
		}
		v, ok := in.Collector.(collectors.Verifier)
		if !ok {
			b.Validation = &model.Validation{Query: b.ValidationQuery, Source: b.ValidationSource,
				Error: fmt.Sprintf("source %q (%s) cannot run validation queries", in.Name, in.Type)}
			continue
		}
		res, err := v.Verify(ctx, *b)
		if err != nil {
			// The query could not run (connection lost, deadline): the
			// source did not answer for this backfill's validation, which
			// is a gap in coverage, not a verdict on the data.
			res = &model.Validation{Query: b.ValidationQuery, Error: redact.String(err.Error())}
			var ve *collectors.VerifyError
			if !errors.As(err, &ve) {
				err = &collectors.VerifyError{Scope: model.JoinScope("validation", b.ID), Err: err}
			}
			collectors.RecordVerifyError(est, in.Name, redact.Error(err))
		}
		if res != nil {
			res.Source = in.Name
		}
		b.Validation = res
	}
}
