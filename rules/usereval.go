package rules

import (
	"fmt"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// activation hands the current objects to CEL without building a map per
// object: one activation is reused for the whole pass.
type activation struct {
	artifact *model.Artifact
	backfill *model.Backfill
	record   *model.DecisionRecord
	now      types.Timestamp
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "artifact":
		return a.artifact, true
	case "backfill":
		return a.backfill, true
	case "record":
		return a.record, true
	case "now":
		return a.now, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// Absent objects are their zero values, so has(record.archived_at) is
// false when there is no record and no expression fails on a nil.
var (
	noArtifact model.Artifact
	noBackfill model.Backfill
	noRecord   model.DecisionRecord
)

// userFailure counts one user rule's run-time errors.
type userFailure struct {
	n     int
	first string
	// stopped says why the rule stopped early, skipped how many objects
	// it was then not evaluated on.
	stopped string
	skipped int
}

// evaluateUser runs the user rules: one pass over the artifacts for the
// artifact rules and one over the backfills for the backfill rules. Their
// findings go into blocks, as the built-in rules' do, and the failures of
// rules that could not be evaluated (BF902) into out.
func (e *Engine) evaluateUser(ix *correlate.Index, now time.Time, blocks *findingBlocks, out *[]model.Finding) {
	var onArtifact, onBackfill []*Rule
	for _, r := range e.user {
		if r.AppliesTo == AppliesToBackfill {
			onBackfill = append(onBackfill, r)
		} else {
			onArtifact = append(onArtifact, r)
		}
	}
	if len(onArtifact)+len(onBackfill) == 0 {
		return
	}
	ctx := map[*Rule]*Context{}
	for _, r := range e.user {
		ctx[r] = e.context(ix, now, r, nil)
		ctx[r].blocks = blocks
	}
	failed := map[*Rule]*userFailure{}
	budgets := map[*Rule]*userBudget{}
	for _, r := range e.user {
		budgets[r] = &userBudget{limits: r.program.limits}
	}
	act := &activation{now: types.Timestamp{Time: now}}
	// subject names the object in messages; it is only built for a finding
	// or an error, not for every evaluation.
	eval := func(r *Rule, subject func() string, is Issue) {
		bud := budgets[r]
		if bud.stopped != "" {
			bud.skipped++
			return
		}
		val, err := bud.eval(r.program, act)
		if err == nil {
			b, ok := val.Value().(bool)
			if !ok {
				err = fmt.Errorf("returned %s, want bool", val.Type().TypeName())
			} else if b {
				is.Message = fmt.Sprintf("%s: %s", r.Title, subject())
				is.Evidence = []string{"user rule " + r.ID + ": " + r.Expr}
				ctx[r].Report(is)
				return
			} else {
				return
			}
		}
		f := failed[r]
		if f == nil {
			f = &userFailure{first: fmt.Sprintf("%v (on %s)", err, subject())}
			failed[r] = f
		}
		f.n++
	}
	if len(onArtifact) > 0 {
		for i := range ix.Artifacts {
			a := &ix.Artifacts[i]
			act.artifact, act.backfill, act.record = a, &noBackfill, &noRecord
			var b *model.Backfill
			if a.Key != "" {
				if b = ix.Backfill(a.Key); b != nil {
					act.backfill = b
				}
				if r := ix.Record(a.Key); r != nil {
					act.record = r
				}
			}
			subject := func() string { return fmt.Sprintf("%s %s", a.Kind, nameOrURI(a)) }
			for _, r := range onArtifact {
				if k := r.program.kinds; k != nil && !k[a.Kind] {
					continue // false whatever else it says (artifactKinds)
				}
				eval(r, subject, Issue{Artifact: a, Backfill: b})
			}
		}
	}
	for _, id := range ix.IDs {
		b := ix.Backfills[id]
		act.artifact, act.backfill, act.record = &noArtifact, b, &noRecord
		if r := ix.Records[id]; r != nil {
			act.record = r
		}
		subject := func() string { return "backfill " + b.ID }
		for _, r := range onBackfill {
			eval(r, subject, Issue{Backfill: b})
		}
	}
	for r, bud := range budgets {
		if bud.stopped != "" {
			f := failed[r]
			if f == nil {
				f = &userFailure{}
				failed[r] = f
			}
			f.stopped, f.skipped = bud.stopped, bud.skipped
		}
	}
	e.reportUserFailures(failed, out)
}

func (e *Engine) reportUserFailures(failed map[*Rule]*userFailure, out *[]model.Finding) {
	meta := e.running(UserRuleErrorID)
	if meta == nil {
		return
	}
	for _, r := range e.user {
		f := failed[r]
		if f == nil {
			continue
		}
		sev := e.SeverityOf(meta)
		fd := model.Finding{
			RuleID: meta.ID, RuleName: meta.Name, Title: meta.Title, Step: meta.Step, Severity: sev,
			ArtifactURI: "rule:" + r.ID, Remediation: meta.Remediation,
			Message:  f.message(r.ID),
			Evidence: []string{"expression: " + r.Expr},
		}
		fd.Fingerprint = model.Fingerprint(fd.RuleID, "", fd.ArtifactURI)
		*out = append(*out, fd)
	}
}

func nameOrURI(a *model.Artifact) string {
	if a.Name != "" && a.Name != a.URI {
		return a.Name + " (" + a.URI + ")"
	}
	return a.URI
}

func (f *userFailure) message(id string) string {
	msg := fmt.Sprintf("user rule %s failed on %d object(s); first error: %s", id, f.n, f.first)
	if f.n == 0 {
		msg = "user rule " + id + " evaluated without errors"
	}
	if f.stopped != "" {
		msg += fmt.Sprintf("; %s, %d object(s) not checked", f.stopped, f.skipped)
	}
	return msg
}
