package rules

import (
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// ResourceOrigin is model.Waiver.Origin for a waiver read from a keep
// label on the artifact itself.
const ResourceOrigin = "resource"

// kept is a valid keep label and what it covered this run.
type kept struct {
	a   *model.Artifact
	k   Keep
	hid int // findings on the artifact not already waived by config
}

// applyKeepLabels turns valid keep labels into waivers of the findings on
// their artifact, every rule's but the meta rules' and BF028's (a keep
// label cannot excuse itself). A config waiver that already covers a
// finding wins: the config is reviewed, a label is not. An invalid label
// (no reason, no date, too long) waives nothing and BF028 reports it; an
// expired one waives nothing and BF900 reports it, like an expired config
// waiver. A label that hides nothing is not reported stale: it sits on a
// live artifact and will cover what the next grace period raises.
func (e *Engine) applyKeepLabels(ix *correlate.Index, fs []model.Finding, now time.Time) []model.Finding {
	max := e.maxKeep()
	byURI := map[string]*kept{}
	var order []*kept
	for i := range ix.Artifacts {
		a := &ix.Artifacts[i]
		if !a.HasKeep() || !a.State.Live() || byURI[a.URI] != nil {
			continue
		}
		k := ReadKeep(a, now, max)
		if !k.Valid() {
			continue
		}
		kp := &kept{a: a, k: k}
		byURI[a.URI] = kp
		order = append(order, kp)
	}
	if len(order) == 0 {
		return fs
	}
	for i := range fs {
		f := &fs[i]
		kp := byURI[f.ArtifactURI]
		if kp == nil || f.Waiver != nil || keepExempt(f.RuleID) {
			continue
		}
		kp.hid++
		if now.Before(kp.k.Until) {
			f.Waiver = &model.Waiver{ID: "keep label on " + kp.a.URI, Reason: kp.k.Reason, Approver: kp.k.By,
				Expires: kp.k.Until, Origin: ResourceOrigin}
		}
	}
	r := e.running(ExpiredWaiverID)
	if r == nil {
		return fs
	}
	for _, kp := range order {
		if now.Before(kp.k.Until) {
			continue
		}
		fs = append(fs, e.expiredKeepFinding(r, ix, kp))
	}
	return fs
}

func keepExempt(rule string) bool {
	switch rule {
	case ExpiredWaiverID, StaleWaiverID, UserRuleErrorID, KeepLabelInvalidID:
		return true
	}
	return false
}

// expiredKeepFinding is BF900 for a keep label: it sits on the artifact
// (so it shows in its backfill's report and issue) and names who set the
// label when the system records it, else the artifact's owner.
func (e *Engine) expiredKeepFinding(r *Rule, ix *correlate.Index, kp *kept) model.Finding {
	a, k := kp.a, kp.k
	var what string
	switch kp.hid {
	case 0:
		what = "it hides nothing now; remove the label"
	case 1:
		what = "the finding it hid counts again"
	default:
		what = fmt.Sprintf("the %d findings it hid count again", kp.hid)
	}
	f := model.Finding{
		RuleID: r.ID, RuleName: r.Name, Title: r.Title, Step: r.Step, Severity: e.SeverityOf(r),
		Owner:   k.By,
		Message: fmt.Sprintf("keep label on %s %s expired %s: %s", a.Kind, orDash(a.Name, a.URI), day(k.Until), what),
		Evidence: []string{
			"keep-until: " + k.Raw, "keep-reason: " + k.Reason,
		},
		Remediation: r.Remediation,
		ArtifactURI: a.URI, BackfillID: a.BackfillID, Key: a.Key, Source: a.Source, Scope: a.Scope,
	}
	if f.Owner == "" {
		f.Owner = ix.Owner(a)
	}
	if k.By != "" {
		f.Evidence = append(f.Evidence, "label set by "+k.By)
	}
	f.Fingerprint = model.Fingerprint(f.RuleID, f.Key, f.ArtifactURI)
	return f
}
