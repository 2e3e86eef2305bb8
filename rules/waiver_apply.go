package rules

import (
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// applyWaivers marks waived findings and reports expired and stale
// waivers. Fingerprint waivers are looked up by fingerprint and selector
// waivers by rule, so the cost is the findings times the few waivers of
// their rule.
// Config waivers go first, then keep labels on the artifacts
// (applyKeepLabels): a finding both cover is waived by the config.
func (e *Engine) applyWaivers(ix *correlate.Index, fs []model.Finding, now time.Time) []model.Finding {
	return e.applyKeepLabels(ix, e.applyConfigWaivers(ix, fs, now), now)
}

func (e *Engine) applyConfigWaivers(ix *correlate.Index, fs []model.Finding, now time.Time) []model.Finding {
	if len(e.waivers) == 0 {
		return fs
	}
	byFingerprint, byRule := map[string][]int{}, map[string][]int{}
	for i, w := range e.waivers {
		if w.Fingerprint != "" {
			byFingerprint[w.Fingerprint] = append(byFingerprint[w.Fingerprint], i)
		} else {
			byRule[w.Rule] = append(byRule[w.Rule], i)
		}
	}
	matched := make([]int, len(e.waivers))
	first := make([]int, len(e.waivers))
	for i := range fs {
		f := &fs[i]
		for _, cands := range [][]int{byFingerprint[f.Fingerprint], byRule[f.RuleID]} {
			for _, wi := range cands {
				w := &e.waivers[wi]
				if !w.Matches(f) {
					continue
				}
				if matched[wi] == 0 {
					first[wi] = i
				}
				matched[wi]++
				if f.Waiver == nil && !expired(w, now) {
					f.Waiver = &model.Waiver{ID: w.ID(), Reason: w.Reason, Approver: w.Approver, Expires: w.Expires, Origin: "config"}
				}
			}
		}
	}
	complete := ix.Estate == nil || ix.Estate.Complete()
	var meta []model.Finding
	for i := range e.waivers {
		w := &e.waivers[i]
		var about *model.Finding
		if matched[i] > 0 {
			about = &fs[first[i]]
		}
		switch {
		case expired(w, now):
			if r := e.running(ExpiredWaiverID); r != nil {
				meta = append(meta, e.waiverFinding(r, w, about, expiredMessage(w, matched[i])))
			}
		case matched[i] == 0 && complete && e.judgesWaiver(w):
			if r := e.running(StaleWaiverID); r != nil {
				meta = append(meta, e.waiverFinding(r, w, nil,
					fmt.Sprintf("waiver %s matches no finding; delete it or fix its selector", w.name())))
			}
		}
	}
	return append(fs, meta...)
}

// expired: a waiver ends at its exact expiry instant, like every deadline.
func expired(w *Waiver, now time.Time) bool { return !now.Before(w.Expires) }

// judgesWaiver reports whether this run could have produced the waiver's
// finding: plan check runs only the governance rules, and a waiver of a
// cleanup rule is not stale for that.
func (e *Engine) judgesWaiver(w *Waiver) bool {
	if w.Fingerprint != "" {
		return !e.partial
	}
	if e.running(w.Rule) != nil {
		return true
	}
	// A disabled rule matches nothing, and the waiver is then stale indeed.
	return e.skipped[w.Rule] == "disabled in config"
}

func expiredMessage(w *Waiver, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("waiver %s expired %s and matches no finding; delete it", w.name(), w.Expires.UTC().Format("2006-01-02"))
	case 1:
		return fmt.Sprintf("waiver %s expired %s: the finding it hid counts again", w.name(), w.Expires.UTC().Format("2006-01-02"))
	}
	return fmt.Sprintf("waiver %s expired %s: the %d findings it hid count again", w.name(), w.Expires.UTC().Format("2006-01-02"), n)
}

func (e *Engine) waiverFinding(r *Rule, w *Waiver, about *model.Finding, msg string) model.Finding {
	f := model.Finding{
		RuleID: r.ID, RuleName: r.Name, Title: r.Title, Step: r.Step, Severity: e.SeverityOf(r),
		Owner: w.Approver, Message: msg, Remediation: r.Remediation,
		ArtifactURI: "waiver:" + w.ID(),
		Evidence: []string{
			"reason: " + w.Reason, "approved by " + w.Approver,
			"expires " + w.Expires.UTC().Format(time.RFC3339),
		},
	}
	// The finding belongs to the backfill whose finding the waiver hid, so
	// it shows in that backfill's report; a waiver that hid nothing belongs
	// to no backfill (its backfill id may be a typo).
	if about != nil {
		f.BackfillID, f.Key = about.BackfillID, about.Key
		f.Evidence = append(f.Evidence, fmt.Sprintf("hid %s on %s (fingerprint %s)", about.RuleID, orDash(about.ArtifactURI, about.BackfillID), about.Fingerprint))
	}
	if !w.Source.IsZero() {
		loc := w.Source
		f.Location = &loc
	}
	// The waiver's own id keeps the fingerprint stable whether or not it
	// still matches something.
	f.Fingerprint = model.Fingerprint(f.RuleID, "", f.ArtifactURI)
	return f
}

func orDash(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return "-"
}
