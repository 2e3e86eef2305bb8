package remedy

import (
	"context"

	"github.com/bfaudit/bfaudit/model"
)

// Actor applies a system's actions through its API, for `fix --apply`.
// It re-reads each artifact before acting, so nothing changed since the
// audit is touched.
type Actor interface {
	// Read returns the artifact's state now, in the terms Expected uses;
	// an artifact that is gone is not Found. An error means the system
	// did not answer: nothing is concluded from it.
	Read(ctx context.Context, a *model.Artifact, act Action) (Observed, error)
	// Expected is the state the audit saw, from the artifact.
	Expected(a *model.Artifact, act Action) map[string]string
	// Act takes the action.
	Act(ctx context.Context, a *model.Artifact, act Action) error
}

// Observed is an artifact's state as read just before acting. State holds
// the facts that decide whether it changed since the audit, and what an
// undo needs (the privileges revoked, the role's validity); it is recorded
// as the before-state.
type Observed struct {
	Found bool              `json:"found"`
	State map[string]string `json:"state,omitempty"`
}

// ActsOn makes a System's Acts from a builder typed to the system's
// collector and its actor. A nil Actor with no error: the source has
// nothing to act through (it was read from an export); a builder that can
// say so returns Actor, one that always acts returns its own type. A
// collector of another type (a test's stand-in) has nothing to act
// through either, nor has one that says it reads saved answers
// (Exported).
func ActsOn[C any, A Actor](build func(C) (A, error)) func(collector any) (Actor, error) {
	return func(collector any) (Actor, error) {
		c, ok := collector.(C)
		if !ok {
			return nil, nil
		}
		if e, ok := collector.(interface{ Exported() bool }); ok && e.Exported() {
			return nil, nil
		}
		a, err := build(c)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
}

// Saw is the part of Expected read from the artifact's attributes: those
// among keys the audit set, under the same keys, which Read reports them
// under too.
func Saw(a *model.Artifact, keys ...string) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		if v := a.Attr(k); v != "" {
			out[k] = v
		}
	}
	return out
}
