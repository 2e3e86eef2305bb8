package fix

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/reports/history"
)

// Statuses of an applied item.
const (
	StatusApplied    = history.FixApplied // done
	StatusFailed     = history.FixFailed  // tried, or could not be tried, and did not happen
	StatusSkipped    = history.FixSkipped // not done: changed or gone since the audit
	StatusWaits      = "waits"            // its step is not open yet
	StatusNotAllowed = "not allowed"      // not reversible and not in fix.allow
	StatusByHand     = "by hand"          // a human act
	StatusWouldApply = "would apply"      // --dry-run: --apply would take it now
)

// Result is what happened to one item.
type Result struct {
	Item   Item   `json:"item"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	Before string `json:"before,omitempty"`
	// Unrecorded says the history store could not record the action.
	Unrecorded bool `json:"unrecorded,omitempty"`
	// gone: skipped because the artifact went since the audit, which is
	// the cleanup done; it does not hold the later steps.
	gone bool
}

// Applier takes a plan's actions.
type Applier struct {
	// Systems act for each source, by source name.
	Systems map[string]remedy.Actor
	// Allowed says whether an action may be taken (Config.Allows).
	Allowed func(action string) bool
	// Store records every action and keeps two runs off one backfill;
	// nil records nothing (no history configured).
	Store *history.Store
	// Actor is who the record says acted.
	Actor string
	// Timeout bounds each read and each action.
	Timeout time.Duration
	Now     func() time.Time
	// DryRun says what --apply would do, touching nothing: no read, no
	// action, no record, no claim; what would be taken is StatusWouldApply.
	DryRun bool
}

// DefaultActionTimeout bounds one read or one action.
const DefaultActionTimeout = time.Minute

// Apply takes, step by step, every action of the plan that may run now
// and is allowed, each after reading its artifact again: one that changed
// or went since the audit is skipped. Once an action of a step did not
// happen, the later steps of that backfill wait: the order holds only if
// each step is done. It returns what happened to every item.
func (ap *Applier) Apply(ctx context.Context, p *Plan) []Result {
	runID := newRunID()
	var out []Result
	for _, bp := range p.Backfills {
		out = append(out, ap.applyBackfill(ctx, runID, bp)...)
	}
	return out
}

func (ap *Applier) applyBackfill(ctx context.Context, runID string, bp BackfillPlan) []Result {
	var out []Result
	if ap.Store != nil && !ap.DryRun && hasReady(bp) {
		release, err := ap.Store.ClaimFix(ctx, string(model.ParseID(bp.ID)))
		if err != nil {
			for _, sp := range bp.Steps {
				for _, it := range sp.Items {
					out = append(out, Result{Item: it, Status: StatusFailed, Reason: redact.String(err.Error())})
				}
			}
			return out
		}
		defer func() { _ = release(context.WithoutCancel(ctx)) }()
	}
	stopped := ""
	for _, sp := range bp.Steps {
		// A step cannot start while an earlier one is not done; removing
		// access does not wait for a failed pause or silence expiry
		// (securityFirst).
		if stopped != "" && sp.Waits == "" && sp.Step != model.StepPlan && !securityFirst(sp.Step) {
			sp.Waits = stopped
		}
		var failed []string
		for _, it := range sp.Items {
			r := ap.applyItem(ctx, runID, sp, it)
			if (r.Status == StatusFailed || r.Status == StatusSkipped) && !r.gone && r.Item.Action != nil && r.Item.Action.Resolves {
				failed = append(failed, fmt.Sprintf("%s %s on %s %s", it.RuleID, it.Action.Name, it.ArtifactURI, r.Status))
			}
			out = append(out, r)
		}
		if len(failed) > 0 && stopped == "" {
			stopped = fmt.Sprintf("step %s is not done: %s", sp.Step, strings.Join(failed, "; "))
		}
	}
	return out
}

func hasReady(bp BackfillPlan) bool {
	for _, sp := range bp.Steps {
		for _, it := range sp.Items {
			if it.Ready(sp) {
				return true
			}
		}
	}
	return false
}

func (ap *Applier) applyItem(ctx context.Context, runID string, sp StepPlan, it Item) Result {
	r := Result{Item: it}
	switch {
	case it.Hold != nil:
		// --due: held for its finding (not due, not announced, waived).
		r.Status, r.Reason = it.Hold.Status, it.Hold.Reason
		return r
	case it.Action == nil:
		r.Status = StatusByHand
		if it.Human != nil {
			r.Reason = it.Human.What
		}
		return r
	case it.Waits != "":
		r.Status, r.Reason = StatusWaits, it.Waits
		return r
	case remedy.PrintOnly(it.Action.Name):
		r.Status, r.Reason = StatusByHand, "bfaudit prints this and does not run it: run "+it.Action.Shell+" yourself, in the order given"
		return r
	case sp.Waits != "":
		r.Status, r.Reason = StatusWaits, sp.Waits
		return r
	case ap.Allowed != nil && !ap.Allowed(it.Action.Name):
		r.Status, r.Reason = StatusNotAllowed, fmt.Sprintf("%s is not reversible: add it to fix.allow in the config to let --apply take it", it.Action.Name)
		return r
	case ap.DryRun:
		r.Status = StatusWouldApply
		return r
	}
	a := it.Artifact()
	sys := ap.Systems[it.Source]
	switch {
	case a == nil:
		r.Status, r.Reason = StatusFailed, "the artifact is not in the audited estate"
	case sys == nil:
		r.Status, r.Reason = StatusFailed, fmt.Sprintf("no configured source %q can act on it (a source that reads saved files, or a system bfaudit cannot act on yet): run the command by hand", it.Source)
	default:
		ap.act(ctx, sys, a, &r)
	}
	return ap.record(ctx, runID, r)
}

// act reads the artifact again, compares it with what the audit saw, and
// acts only when it is unchanged.
func (ap *Applier) act(ctx context.Context, sys remedy.Actor, a *model.Artifact, r *Result) {
	act := *r.Item.Action
	rctx, cancel := context.WithTimeout(ctx, ap.timeout())
	obs, err := sys.Read(rctx, a, act)
	cancel()
	if err != nil {
		r.Status, r.Reason = StatusFailed, "read it again before acting: "+redact.String(err.Error())
		return
	}
	before, _ := json.Marshal(obs)
	r.Before = redact.String(string(before))
	if !obs.Found {
		r.Status, r.Reason, r.gone = StatusSkipped, "gone since the audit: nothing to do", true
		return
	}
	if diff := changed(sys.Expected(a, act), obs.State); diff != "" {
		r.Status, r.Reason = StatusSkipped, "changed since the audit ("+diff+"): audit again and decide"
		return
	}
	actx, cancel := context.WithTimeout(ctx, ap.timeout())
	err = sys.Act(actx, a, act)
	cancel()
	if err != nil {
		r.Status, r.Reason = StatusFailed, redact.String(err.Error())
		return
	}
	r.Status = StatusApplied
}

// changed says how the state read differs from what the audit saw, for
// the facts the audit knew; "" when it does not.
func changed(expected, now map[string]string) string {
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(expected)) {
		if want, got := expected[k], now[k]; want != got {
			diffs = append(diffs, fmt.Sprintf("%s was %q, is %q", k, want, got))
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}

// record writes a tried action to the history store. A failure to record
// is reported on the result: the action happened, but its record did not.
func (ap *Applier) record(ctx context.Context, runID string, r Result) Result {
	if ap.Store == nil || r.Item.Action == nil {
		return r
	}
	it := r.Item
	err := ap.Store.RecordFix(context.WithoutCancel(ctx), history.FixAction{
		RunID: runID, At: ap.now(), Actor: ap.Actor, BackfillID: string(model.ParseID(it.BackfillID)), Fingerprint: it.Fingerprint,
		RuleID: it.RuleID, ArtifactURI: it.ArtifactURI, Source: it.Source, Action: it.Action.Name, Command: it.Action.Shell,
		Before: r.Before, Result: r.Status, Error: r.Reason,
	})
	if err != nil {
		r.Unrecorded = true
		r.Reason = strings.TrimPrefix(r.Reason+"; ", "; ") + "not recorded in history: " + redact.String(err.Error())
	}
	return r
}

func (ap *Applier) timeout() time.Duration {
	if ap.Timeout > 0 {
		return ap.Timeout
	}
	return DefaultActionTimeout
}

func (ap *Applier) now() time.Time {
	if ap.Now != nil {
		return ap.Now().UTC()
	}
	return time.Now().UTC()
}

// Failed reports whether any action failed or went unrecorded.
func Failed(results []Result) bool {
	return slices.ContainsFunc(results, func(r Result) bool { return r.Status == StatusFailed || r.Unrecorded })
}

func newRunID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
