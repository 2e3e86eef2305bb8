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
			br := &model.BackfillReport{Backfill: model.Backfill{ID: "BF-7"}, Lifecycle: tc.lc}
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
