package collectortest

import (
	"context"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// PlannedAs plays a plans source for real-server tests: each backfill id
// replayed a month ago (true) or is still running (false); every plan
// expires in 120 days, so only lingering is judged. It is dated from the
// wall clock, as the real servers' objects are.
type PlannedAs map[string]bool

// Init takes nothing from the Env.
func (PlannedAs) Init(collectors.Env) error { return nil }

// Units declares the whole source.
func (PlannedAs) Units(context.Context) ([]string, error) { return []string{""}, nil }

// Collect emits one plan per id.
func (p PlannedAs) CollectUnit(_ context.Context, _ string, sink collectors.Sink) error {
	now := time.Now().UTC()
	for id, over := range p {
		b := model.Backfill{ID: id, Origin: model.OriginPlan, Owner: "data-eng@example.com", Status: model.StatusRunning,
			Timeline: model.Timeline{StartedAt: now.Add(-32 * 24 * time.Hour)},
			Expiry:   now.Add(120 * 24 * time.Hour), Source: model.Location{Source: "plans", Path: "plans/" + id + ".yaml"}}
		if over {
			b.Status, b.Timeline.CompletedAt = model.StatusReplayed, now.Add(-30*24*time.Hour)
		}
		sink.AddBackfill(b)
	}
	sink.AddRead("", "plans", 1, 0)
	return nil
}
