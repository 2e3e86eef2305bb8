package rules

import (
	"cmp"
	"slices"
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

// fold applies the precedence to the staged findings that are not dead
// yet (not duplicates), marking dead those folded into another, before
// the engine makes the report's slice: that slice then holds only the
// findings that stay (about 104,000 of the 148,000 staged on the bench
// estate). Only findings on an artifact take part; they are grouped by
// artifact by sorting their positions, 4 bytes each (a map keyed by
// backfill and URI held about 10 MB at the run's peak).
func (p precedence) fold(b *findingBlocks, dead []bool) {
	if len(p) == 0 {
		return
	}
	superseding := map[string]bool{}
	for _, over := range p {
		for id := range over {
			superseding[id] = true
		}
	}
	var involved []int32
	for i := range int32(b.n) {
		if s := b.at(i); !dead[i] && s.artifactURI != "" && p.involved(s.rule.ID, superseding) {
			involved = append(involved, i)
		}
	}
	slices.SortFunc(involved, func(i, j int32) int {
		a, c := b.at(i), b.at(j)
		return cmp.Or(cmp.Compare(a.key, c.key), cmp.Compare(a.artifactURI, c.artifactURI), cmp.Compare(i, j))
	})
	for len(involved) > 0 {
		first := b.at(involved[0])
		n := 1
		for n < len(involved) {
			if s := b.at(involved[n]); s.key != first.key || s.artifactURI != first.artifactURI {
				break
			}
			n++
		}
		if n > 1 {
			p.foldGroup(b, involved[:n], dead)
		}
		involved = involved[n:]
	}
}

// foldGroup folds the findings of one artifact: leaves first (a finding
// that absorbs nothing still alive), each into the most severe finding
// that supersedes it (then the lowest rule id), so that chains (BF014
// into BF017 into BF018) end in one finding.
func (p precedence) foldGroup(fs *findingBlocks, g []int32, dead []bool) {
	for {
		folded := false
		for _, b := range g {
			if dead[b] || p.absorbsAny(fs, g, b, dead) {
				continue
			}
			into, as := int32(-1), ""
			for _, a := range g {
				if a == b || dead[a] {
					continue
				}
				s, ok := p.over(fs.at(a).rule.ID, fs.at(b).rule.ID)
				if ok && (into < 0 || better(fs.at(a), fs.at(into))) {
					into, as = a, s
				}
			}
			if into < 0 {
				continue
			}
			fs.foldInto(fs.at(into), fs.at(b), as)
			dead[b], folded = true, true
		}
		if !folded {
			return
		}
	}
}

// absorbsAny reports whether the finding at b supersedes a live finding of
// the group.
func (p precedence) absorbsAny(fs *findingBlocks, g []int32, b int32, dead []bool) bool {
	for _, c := range g {
		if c != b && !dead[c] {
			if _, ok := p.over(fs.at(b).rule.ID, fs.at(c).rule.ID); ok {
				return true
			}
		}
	}
	return false
}

func better(a, b *staged) bool {
	if a.severity != b.severity {
		return a.severity > b.severity
	}
	return cmp.Less(a.rule.ID, b.rule.ID)
}

// foldInto makes b one evidence line of a: "not time-bound (BF102): no
// expiry condition", the evidence of b that a does not already hold. The
// line and the list of folded rules are the blocks' kept copies, made in
// their scratch space: a fold allocates only a's longer evidence (a
// million-artifact estate folds 540,000 findings, 190 MB of garbage at
// the run's peak when each fold built its line and lists anew).
func (fs *findingBlocks) foldInto(a, b *staged, as string) {
	line := append(fs.line[:0], as...)
	line = append(line, " ("...)
	line = append(line, b.rule.ID...)
	line = append(line, "): "...)
	n := 0
	aev, bev := a.evidence(), b.evidence()
	for i, e := range bev {
		if slices.Contains(aev, e) || slices.Contains(bev[:i], e) {
			continue
		}
		if n > 0 {
			line = append(line, "; "...)
		}
		line = append(line, e...)
		n++
	}
	if n == 0 {
		line = append(line, b.message...)
	}
	fs.line = line
	a.setEvidence(append(slices.Clip(aev), fs.textOf(line)))
	a.severity = max(a.severity, b.severity)
	ids := append(fs.ids[:0], a.folded()...)
	if !slices.Contains(ids, b.rule.ID) {
		ids = append(ids, b.rule.ID)
	}
	for _, id := range b.folded() {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	fs.ids = ids
	if len(ids) != int(a.nfold) {
		a.setFolded(fs.foldedList(ids))
	}
}
