package faultmatrix

import (
	"context"
	"errors"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// fake reports a temp table and a grant in dataset p1/ds, and fails a
// unit when told to.
type fake struct {
	collectors.Whole
	failAt *string
}

func (f fake) CollectUnit(_ context.Context, _ string, sink collectors.Sink) error {
	if f.failAt != nil && *f.failAt == "" {
		return errors.New("connection refused")
	}
	// What lies outside the failed unit is still reported, as a real
	// collector does: only the unit's own artifacts go missing.
	add := func(a model.Artifact) {
		if f.failAt == nil || !model.ScopeWithin(a.Scope, *f.failAt) {
			sink.AddArtifact(a)
		}
	}
	if f.failAt != nil {
		sink.AddError(*f.failAt, errors.New("HTTP 500"))
	}
	if f.failAt == nil || !model.ScopeWithin("p1", *f.failAt) {
		sink.AddRead("p1", "bindings", 1, 0)
		sink.AddRead(model.JoinScope("p1", "ds"), "tables", 1, 0)
	}
	add(model.Artifact{Kind: model.KindTable, Scope: model.JoinScope("p1", "ds"), URI: "fake://p1/ds/bf_7001_tmp",
		Name: "bf_7001_tmp", Labels: model.TagsOf(map[string]string{"backfill_id": "bf-7001"}), State: model.StateActive})
	add(model.Artifact{Kind: model.KindGrant, Scope: "p1", URI: "fake://p1/iam/editor",
		Name: "editor", Labels: model.TagsOf(map[string]string{"backfill_id": "bf-7001"}), State: model.StateActive,
		Attributes: model.TagsOf(map[string]string{model.AttrPrincipal: "serviceAccount:bf-7001@proj.iam.gserviceaccount.com",
			model.AttrRole: "roles/bigquery.dataEditor"})})
	sink.AddRead("", "plans", 1, 0)
	return nil
}

func unit(kind, scope string) Unit {
	return Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		c := &switchable{fake: &fake{}}
		return c, func() { s := scope; c.fake.failAt = &s }
	}}
}

type switchable struct {
	collectors.Whole
	fake *fake
}

func (s *switchable) CollectUnit(ctx context.Context, _ string, sink collectors.Sink) error {
	return s.fake.CollectUnit(ctx, "", sink)
}

// TestHarnessOnAFake runs the matrix on a collector that reports its
// failures at the right units. (Pointed at the wrong unit, the same fake
// makes the harness report the resolutions and ticks it would cause.)
func TestHarnessOnAFake(t *testing.T) {
	Run(t, "fake", []Unit{
		unit("source", ""),
		unit("project", "p1"),
		unit("dataset", model.JoinScope("p1", "ds")),
	})
}

func TestReadsAtAUnitOrBelow(t *testing.T) {
	c := model.Coverage{Reads: []model.UnitRead{{Scope: "p1/ds", What: "tables", Read: 3}}}
	for scope, want := range map[string]bool{"": true, "p1": true, "p1/ds": true, "p1/ds/t": false, "p2": false} {
		if got := readsAt(c, scope); got != want {
			t.Errorf("readsAt(%q) = %v, want %v", scope, got, want)
		}
	}
}
