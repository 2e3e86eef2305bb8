package rules

import (
	"cmp"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Precedence between rules that judge the same artifact for the same
// reason lives in one place, the rules' Supersedes: a grant that BF003
// reports as still in force is not also a second finding for having no
// expiry (BF102) and a third for missing from the plan (BF014). After
// every check ran, the engine folds the finding of a superseded rule into
// the superseding rule's finding on the same artifact (same backfill, same
// artifact URI): it becomes one line of that finding's evidence, and the
// finding keeps the more severe of the two severities. The superseding
// finding keeps its fingerprint, step and remedy; the folded one is gone,
// as if fixed with it (the fix that removes the artifact fixes both).
// A finding that nothing supersedes on its artifact stands alone.

// precedence maps a superseded rule id to what supersedes it among the
// running rules.
type precedence map[string]map[string]string // superseded -> superseding -> As

func newPrecedence(rs []*Rule) precedence {
	p := precedence{}
	running := map[string]bool{}
	for _, r := range rs {
		running[r.ID] = true
	}
	for _, r := range rs {
		for _, s := range r.Supersedes {
			if !running[s.Rule] {
				continue
			}
			if p[s.Rule] == nil {
				p[s.Rule] = map[string]string{}
			}
			p[s.Rule][r.ID] = s.As
		}
	}
	return p
}

// over reports whether a finding of rule a absorbs one of rule b.
func (p precedence) over(a, b string) (string, bool) {
	as, ok := p[b][a]
	return as, ok
}

// involved reports whether rule id supersedes or is superseded.
func (p precedence) involved(id string, superseding map[string]bool) bool {
	return p[id] != nil || superseding[id]
}

// fold applies the precedence to fs in place and returns what stays, in
// the same order. Only findings on an artifact take part; the work is one
// pass to group them by artifact and a few comparisons per artifact.
func (p precedence) fold(fs []model.Finding) []model.Finding {
	if len(p) == 0 {
		return fs
	}
	superseding := map[string]bool{}
	for _, over := range p {
		for id := range over {
			superseding[id] = true
		}
	}
	groups := map[string][]int{}
	for i := range fs {
		f := &fs[i]
		if f.ArtifactURI != "" && p.involved(f.RuleID, superseding) {
			k := string(f.Key) + "\x00" + f.ArtifactURI
			groups[k] = append(groups[k], i)
		}
	}
	dead := map[int]bool{}
	for _, g := range groups {
		if len(g) > 1 {
			p.foldGroup(fs, g, dead)
		}
	}
	if len(dead) == 0 {
		return fs
	}
	out := fs[:0]
	for i := range fs {
		if !dead[i] {
			out = append(out, fs[i])
		}
	}
	return out
}

// foldGroup folds the findings of one artifact: leaves first (a finding
// that absorbs nothing still alive), each into the most severe finding
// that supersedes it (then the lowest rule id), so that chains (BF014
// into BF017 into BF018) end in one finding.
func (p precedence) foldGroup(fs []model.Finding, g []int, dead map[int]bool) {
	for {
		folded := false
		for _, b := range g {
			if dead[b] || p.absorbsAny(fs, g, b, dead) {
				continue
			}
			into, as := -1, ""
			for _, a := range g {
				if a == b || dead[a] {
					continue
				}
				s, ok := p.over(fs[a].RuleID, fs[b].RuleID)
				if ok && (into < 0 || better(&fs[a], &fs[into])) {
					into, as = a, s
				}
			}
			if into < 0 {
				continue
			}
			foldInto(&fs[into], &fs[b], as)
			dead[b], folded = true, true
		}
		if !folded {
			return
		}
	}
}

// absorbsAny reports whether the finding at b supersedes a live finding of
// the group.
func (p precedence) absorbsAny(fs []model.Finding, g []int, b int, dead map[int]bool) bool {
	for _, c := range g {
		if c != b && !dead[c] {
			if _, ok := p.over(fs[b].RuleID, fs[c].RuleID); ok {
				return true
			}
		}
	}
	return false
}

func better(a, b *model.Finding) bool {
	if a.Severity != b.Severity {
		return a.Severity > b.Severity
	}
	return cmp.Less(a.RuleID, b.RuleID)
}

// foldInto makes b one evidence line of a: "not time-bound (BF102): no
// expiry condition", the evidence of b that a does not already hold.
func foldInto(a, b *model.Finding, as string) {
	var extra []string
	for _, e := range b.Evidence {
		if !slices.Contains(a.Evidence, e) && !slices.Contains(extra, e) {
			extra = append(extra, e)
		}
	}
	what := strings.Join(extra, "; ")
	if what == "" {
		what = b.Message
	}
	a.Evidence = append(slices.Clip(a.Evidence), as+" ("+b.RuleID+"): "+what)
	a.Severity = max(a.Severity, b.Severity)
	for _, id := range append([]string{b.RuleID}, b.Folded...) {
		if !slices.Contains(a.Folded, id) {
			a.Folded = append(slices.Clip(a.Folded), id)
		}
	}
}
