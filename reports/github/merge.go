package github

import (
	"cmp"
	"slices"

	"github.com/bfaudit/bfaudit/model"
)

// basisOf says what an item missing this run rests on: its own unit, the
// unit that described its backfill when the issue last listed it (kept in
// the marker) or as this run describes it, and the whole estate for a
// verdict on the whole backfill. model.Answers decides; no sink keeps its
// own idea of what answered.
func basisOf(p item, described model.Location, br *model.BackfillReport) model.Basis {
	f := model.Finding{Source: p.Source, Scope: p.Scope, ArtifactURI: p.Artifact}
	b := model.BasisOf(&f, br)
	if described.Source != "" {
		b.DescribedBy, b.DescribedUnknown = described, false
	}
	return b
}

// merged is one backfill's checklist after this run.
type merged struct {
	items    []item
	cameBack []item // resolved before, found again
	fresh    []item // never listed before
	// label is what the waiver label on the closed issue came to, when
	// there was something for it to accept.
	label *labelVerdict
}

// mergeItems folds this run's findings into the items the issue already
// lists. An item accepted on the issue stays accepted (acceptances are
// judged, expired and granted afterwards, in accept.go). Nothing is ticked
// unless every unit it rests on answered (model.Answers.MayResolve);
// described is where the backfill was described when the issue was last
// written, br the backfill this run.
func mergeItems(prev []item, findings []model.Finding, ans model.Answers, described model.Location, br *model.BackfillReport) merged {
	var out merged
	prevBy := make(map[string]item, len(prev))
	for _, p := range prev {
		prevBy[p.FP] = p
	}
	seen := make(map[string]bool, len(findings))
	for i := range findings {
		f := &findings[i]
		if seen[f.Fingerprint] {
			continue
		}
		seen[f.Fingerprint] = true
		it := item{
			FP: f.Fingerprint, Rule: f.RuleID, Title: f.Title, Severity: f.Severity.String(),
			Step: f.Step, Artifact: f.ArtifactURI, Source: f.Source, Scope: f.Scope, finding: f,
		}
		if !f.Severity.IsValid() {
			it.Severity = ""
		}
		p, had := prevBy[f.Fingerprint]
		switch {
		case f.Waiver != nil && f.Waiver.Origin != "github":
			it.State = stateWaived
		case had && p.State == stateAccepted && p.Accepted != nil:
			// An acceptance recorded with who and when; one an older
			// bfaudit recorded without them is open again until accepted
			// anew.
			it.State, it.Accepted = stateAccepted, p.Accepted
		default:
			it.State, it.unread = openState(f)
			// Listed and not ticked: what closing the issue with the
			// waiver label accepts. A ticked item that returns is news.
			it.listed = had && p.State != stateResolved
			switch {
			case it.State != stateOpen:
			case !had:
				out.fresh = append(out.fresh, it)
			case p.State == stateResolved:
				out.cameBack = append(out.cameBack, it)
			}
		}
		out.items = append(out.items, it)
	}
	for _, p := range prev {
		if seen[p.FP] {
			continue
		}
		seen[p.FP] = true
		switch {
		case p.State == stateResolved:
		case ans.MayResolve(basisOf(p, described, br)):
			p.State = stateResolved
		case p.State == stateOpen || (p.State == stateAccepted && p.Accepted == nil):
			p.State, p.Accepted = stateUnread, nil
			p.unread = ans.Unanswered(basisOf(p, described, br))
		}
		p.listed = p.State.blocking()
		p.finding = nil
		out.items = append(out.items, p)
	}
	sortItems(out.items)
	return out
}

// sortItems orders the checklist by lifecycle step, then most severe first,
// then rule and artifact, so the order is the same on every run.
func sortItems(items []item) {
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(
			cmp.Compare(a.Step, b.Step),
			-cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Artifact, b.Artifact),
			cmp.Compare(a.FP, b.FP),
		)
	})
}

func severityRank(s string) int {
	v, err := model.ParseSeverity(s)
	if err != nil {
		return 0
	}
	return int(v)
}

// openState is where a finding in this run's report stands when nothing
// waives or accepts it: open, or unread when the history store carried it
// without a re-check this run.
func openState(f *model.Finding) (itemState, []string) {
	if len(f.Unread) > 0 {
		return stateUnread, f.Unread
	}
	return stateOpen, nil
}

// blocking reports whether any item keeps the issue open.
func blocking(items []item) bool {
	return slices.ContainsFunc(items, func(it item) bool { return it.State.blocking() })
}

// unreadUnits lists, once each and sorted, the units that did not answer
// for this backfill's unread items, plus extra (the unit that describes
// the backfill, when it did not answer): exactly what the note names.
func unreadUnits(items []item, extra []string) []string {
	out := slices.Clone(extra)
	for _, it := range items {
		for _, u := range it.unread {
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	slices.Sort(out)
	return out
}
