package rules

import (
	"iter"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// kindIndex is the estate's artifacts by kind, built once per evaluation,
// so that each rule visits the kinds it judges (Rule.Kinds) and no other:
// most rules are about one kind, and most artifacts are of others. Before
// it, every rule walked every backfill's artifacts, building a slice of
// them per backfill, to pick its kind out: the full catalogue went over
// the estate about thirty times.
type kindIndex struct {
	ix *correlate.Index
	// tied are the live artifacts tied to a known backfill, by backfill
	// id, then in estate order: what Context.Tied walks.
	tied []tiedArtifact
	// tiedOf holds, by kind, positions in tied; of, by kind, indexes into
	// ix.Artifacts (every artifact, tied or not, live or not).
	tiedOf map[model.Kind][]int32
	of     map[model.Kind][]int32
}

type tiedArtifact struct {
	b *model.Backfill
	a *model.Artifact
}

// newKindIndex makes the index of ix, built when a rule first asks
// (rules about plans and records never do).
func newKindIndex(ix *correlate.Index) *kindIndex { return &kindIndex{ix: ix} }

// build counts first, so that every list is made once at its size.
func (k *kindIndex) build() {
	ix := k.ix
	count, countTied := map[model.Kind]int{}, map[model.Kind]int{}
	tied := 0
	for i := range ix.Artifacts {
		count[ix.Artifacts[i].Kind]++
	}
	for _, id := range ix.IDs {
		for _, j := range ix.ByBackfill[id] {
			if a := &ix.Artifacts[j]; a.State.Live() {
				countTied[a.Kind]++
				tied++
			}
		}
	}
	k.of = make(map[model.Kind][]int32, len(count))
	for kind, n := range count {
		k.of[kind] = make([]int32, 0, n)
	}
	k.tiedOf = make(map[model.Kind][]int32, len(countTied))
	for kind, n := range countTied {
		k.tiedOf[kind] = make([]int32, 0, n)
	}
	k.tied = make([]tiedArtifact, 0, tied)
	for i := range ix.Artifacts {
		a := &ix.Artifacts[i]
		k.of[a.Kind] = append(k.of[a.Kind], int32(i))
	}
	for _, id := range ix.IDs {
		b := ix.Backfills[id]
		for _, j := range ix.ByBackfill[id] {
			if a := &ix.Artifacts[j]; a.State.Live() {
				k.tiedOf[a.Kind] = append(k.tiedOf[a.Kind], int32(len(k.tied)))
				k.tied = append(k.tied, tiedArtifact{b, a})
			}
		}
	}
}

// merged yields, in increasing order, the positions the lists of kinds
// hold (each list is increasing); every position 0..all-1 when kinds is
// nil (a rule that judges every kind).
func merged(lists map[model.Kind][]int32, kinds []model.Kind, all int) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		if kinds == nil {
			for i := range all {
				if !yield(int32(i)) {
					return
				}
			}
			return
		}
		heads := make([][]int32, 0, len(kinds))
		for _, k := range kinds {
			if l := lists[k]; len(l) > 0 {
				heads = append(heads, l)
			}
		}
		for {
			low := -1
			for h, l := range heads {
				if len(l) > 0 && (low < 0 || l[0] < heads[low][0]) {
					low = h
				}
			}
			if low < 0 {
				return
			}
			p := heads[low][0]
			heads[low] = heads[low][1:]
			if !yield(p) {
				return
			}
		}
	}
}

// Tied calls fn for every live artifact of the rule's kinds tied to a
// backfill a plan, record or scheduler describes, by backfill id, then
// in the estate's order.
func (c *Context) Tied(fn func(b *model.Backfill, a *model.Artifact)) {
	k := c.kinds()
	for p := range merged(k.tiedOf, c.rule.Kinds, len(k.tied)) {
		t := k.tied[p]
		fn(t.b, t.a)
	}
}

// Artifacts yields every artifact of the rule's kinds, tied or not, live
// or not, in the estate's order.
func (c *Context) Artifacts() iter.Seq[*model.Artifact] {
	return func(yield func(*model.Artifact) bool) {
		k := c.kinds()
		for i := range merged(k.of, c.rule.Kinds, len(k.ix.Artifacts)) {
			if !yield(&k.ix.Artifacts[i]) {
				return
			}
		}
	}
}

// ArtifactsOf yields the artifacts of the rule's kinds tied to a backfill
// (known or not), live or not, in the estate's order, without building a
// slice of them as Index.ArtifactsOf does.
func (c *Context) ArtifactsOf(id model.BackfillID) iter.Seq[*model.Artifact] {
	return func(yield func(*model.Artifact) bool) {
		for _, j := range c.Index.ByBackfill[id] {
			if a := &c.Index.Artifacts[j]; c.judges(a.Kind) && !yield(a) {
				return
			}
		}
	}
}

// judges reports whether the rule judges artifacts of kind k.
func (c *Context) judges(k model.Kind) bool {
	if c.rule.Kinds == nil {
		return true
	}
	for _, j := range c.rule.Kinds {
		if j == k {
			return true
		}
	}
	return false
}

// kinds returns the evaluation's kind index, built on first use (and made
// when the context was made outside an evaluation).
func (c *Context) kinds() *kindIndex {
	if c.byKind == nil || c.byKind.ix != c.Index {
		c.byKind = newKindIndex(c.Index)
	}
	if c.byKind.of == nil {
		c.byKind.build()
	}
	return c.byKind
}
