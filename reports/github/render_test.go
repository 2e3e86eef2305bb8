package github

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// The Lifecycle row tells an owner where the backfill stands among the
// cleanup steps, in their order, and which one to work on.
func TestBodyShowsLifecyclePosition(t *testing.T) {
	r, err := newRenderer(DefaultTitleTemplate, DefaultBodyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		lc   model.Lifecycle
		want string
	}{
		{"verified, normalizing", model.Lifecycle{Reached: model.StepVerified, Next: model.StepNormalized},
			"| Lifecycle | verified ✓ → **normalized** (next) → access revoked → archived → retired |"},
		{"replay not verified yet", model.Lifecycle{Reached: model.StepPlan, Next: model.StepVerified},
			"| Lifecycle | **verified** (next) → normalized → access revoked → archived → retired |"},
		{"backfill nobody described", model.Lifecycle{Blockers: []string{"no plan or decision record describes this backfill"}},
			"| Lifecycle | **plan** (next) → verified → normalized → access revoked → archived → retired |"},
		{"all done", model.Lifecycle{Reached: model.StepRetired, Next: model.StepRetired, Done: true},
			"| Lifecycle | every step done: verified ✓ → normalized ✓ → access revoked ✓ → archived ✓ → retired ✓ |"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := &model.BackfillReport{Backfill: &model.Backfill{ID: "BF-7"}, Lifecycle: tc.lc}
			v, err := view("BF-7", time.Time{}, br, "", "", false, DefaultWaiverLabel, DefaultAcceptDays, nil, nil, marker{Backfill: "BF-7"})
			if err != nil {
				t.Fatal(err)
			}
			_, body, err := r.render(v)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(body, tc.want+"\n") {
				t.Errorf("body lacks %q:\n%s", tc.want, body)
			}
		})
	}
}

// A next step that only silent sources keep open is unknown, not "not
// done": the body says which sources did not answer instead of listing
// their silence as something that blocks the step.
func TestBodyShowsUnknownStep(t *testing.T) {
	r, err := newRenderer(DefaultTitleTemplate, DefaultBodyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	lc := model.Lifecycle{Reached: model.StepArchived, Next: model.StepRetired, Unknown: []string{"flags", "kafka-@ops"},
		Blockers: []string{"sources flags, kafka-@ops did not answer for what they held"}}
	br := &model.BackfillReport{Backfill: &model.Backfill{ID: "BF-7"}, Lifecycle: lc}
	v, err := view("BF-7", time.Time{}, br, "", "", false, DefaultWaiverLabel, DefaultAcceptDays, nil, nil, marker{Backfill: "BF-7"})
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := r.render(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| Lifecycle | verified ✓ → normalized ✓ → access revoked ✓ → archived ✓ → **retired** (unknown) |\n",
		"| Next step | unknown: sources `flags`, `kafka-@ops` did not answer, so whether it is done cannot be told; bfaudit looks again on the next run |\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "Blocks next step") || strings.Contains(body, "(next)") {
		t.Errorf("an unknown step reads as one not done:\n%s", body)
	}
}
