package github

import (
	"cmp"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// answeredFunc reports whether a source answered for a scope this run.
type answeredFunc func(source, scope string) bool

// coverageAnswered builds an answeredFunc from the report's coverage. A
// source missing from the coverage did not answer; a finding that names no
// source rests on the whole estate, so every source must have answered.
func coverageAnswered(cov []model.Coverage) answeredFunc {
	return func(source, scope string) bool {
		if source == "" {
			if len(cov) == 0 {
				return false
			}
			for _, c := range cov {
				if !c.Answered(scope) {
					return false
				}
			}
			return true
		}
		for _, c := range cov {
			if c.Source == source {
				return c.Answered(scope)
			}
		}
		return false
	}
}

// backfillAnswered narrows answered to what one backfill's items may
// conclude: nothing resolves when the source describing the backfill (its
// plan or record) did not answer or the backfill is missing from this run,
// since every finding of it rests on that description; and an item about
// the backfill as a whole (no artifact) rests on every source, so it only
// resolves when all answered. The history store applies the same rule.
func backfillAnswered(cov []model.Coverage, b *model.BackfillReport) answeredFunc {
	answered := coverageAnswered(cov)
	var described bool
	if b == nil {
		// Gone from the estate: believable only when every source answered.
		described = allAnswered(cov)
	} else {
		described = !b.Known || b.Backfill.Source.Source == "" ||
			answered(b.Backfill.Source.Source, b.Backfill.Source.Path)
	}
	return func(source, scope string) bool {
		return described && answered(source, scope)
	}
}

// allAnswered reports whether every source answered fully this run.
func allAnswered(cov []model.Coverage) bool {
	if len(cov) == 0 {
		return false
	}
	for _, c := range cov {
		if c.Status != model.CoverageOK && c.Status != "" {
			return false
		}
	}
	return true
}

// itemAnswered says whether an item missing this run may be ticked.
func itemAnswered(answered answeredFunc, allOK bool, p item) bool {
	if p.Artifact == "" || strings.HasPrefix(p.Artifact, "record:") {
		return allOK && answered(p.Source, p.Scope)
	}
	return answered(p.Source, p.Scope)
}

// merged is one backfill's checklist after this run.
type merged struct {
	items    []item
	cameBack []item // resolved before, found again
	fresh    []item // never listed before
}

// mergeItems folds this run's findings into the items the issue already
// lists. accepted says the issue was closed with the waiver label: what it
// listed is accepted. Nothing is ticked unless its source answered.
func mergeItems(prev []item, findings []model.Finding, answered answeredFunc, allOK, accepted bool) merged {
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
		case had && (p.State == stateAccepted || (accepted && p.State != stateResolved)):
			// Accepted is what was not yet ticked when the issue was closed
			// with the waiver label; a ticked item that returns is news.
			it.State = stateAccepted
		default:
			it.State = stateOpen
			if !had {
				out.fresh = append(out.fresh, it)
			} else if p.State == stateResolved {
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
		case itemAnswered(answered, allOK, p):
			p.State = stateResolved
		case p.State == stateOpen:
			p.State = stateUnread
		}
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

// blocking reports whether any item keeps the issue open.
func blocking(items []item) bool {
	return slices.ContainsFunc(items, func(it item) bool { return it.State.blocking() })
}

// unreadSources lists, once each and sorted, the sources of unread items.
func unreadSources(items []item) []string {
	var out []string
	for _, it := range items {
		if it.State != stateUnread {
			continue
		}
		name := it.Source
		if name == "" {
			name = "(all sources)"
		}
		if it.Scope != "" {
			name += " / " + it.Scope
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
