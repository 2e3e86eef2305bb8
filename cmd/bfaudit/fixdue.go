package main

import (
	"context"
	"time"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

// dueGate reads, as of the report's time, what `fix --due` acts by: each
// finding's due date as the store keeps it (set on the report's findings,
// as the audit would show them today) and when its owner was first told.
// Only the notices of the findings shown (keep) are read.
func dueGate(ctx context.Context, store *history.Store, r *model.Report, keep func(model.Finding) bool, noticeDays int) (*fix.DueGate, error) {
	if err := store.Due(ctx, r); err != nil {
		return nil, err
	}
	g := &fix.DueGate{Now: r.Now, NoticeDays: noticeDays, Notified: map[string]time.Time{}}
	var fps []string
	for _, f := range r.Findings {
		if !f.Waived() && keep(f) {
			fps = append(fps, f.Fingerprint)
		}
	}
	notified, err := store.FirstNotifiedOf(ctx, fps)
	if err != nil {
		return nil, err
	}
	g.Notified = notified
	return g, nil
}
