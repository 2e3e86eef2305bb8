package rules

import "github.com/bfaudit/bfaudit/model"

// findingBlocks holds what the built-in rules report, in blocks that are
// never moved. A slice grown by append copies every finding several times
// on the way (about five times over with the 1.25 growth of large slices)
// and leaves up to a quarter of it unused: with a million findings of 300
// bytes, that was most of the engine's allocation.
type findingBlocks struct {
	full [][]model.Finding
	cur  []model.Finding
	n    int
	// texts keeps one copy of evidence lines that repeat ("tied by
	// label", "plan plans/bf-1.yaml lists 1 asset(s)"), up to maxTexts
	// different ones: they are built for each finding, and a million
	// findings hold millions of them.
	texts map[string]string
}

const maxTexts = 1 << 16

// text returns the kept copy of s, keeping s if there is room.
func (b *findingBlocks) text(s string) string {
	if t, ok := b.texts[s]; ok {
		return t
	}
	if b.texts == nil {
		b.texts = map[string]string{}
	}
	if len(b.texts) < maxTexts {
		b.texts[s] = s
	}
	return s
}

const blockLen = 4096

// add returns a zero finding at the end of the blocks, for the caller to fill.
func (b *findingBlocks) add() *model.Finding {
	if len(b.cur) == cap(b.cur) {
		if b.cur != nil {
			b.full = append(b.full, b.cur)
		}
		b.cur = make([]model.Finding, 0, blockLen)
	}
	b.cur = b.cur[:len(b.cur)+1]
	b.n++
	return &b.cur[len(b.cur)-1]
}

// drain hands each finding to fn in the order they were added, letting
// each block go once it is done.
func (b *findingBlocks) drain(fn func(*model.Finding)) {
	for i := range b.full {
		blk := b.full[i]
		b.full[i] = nil
		for j := range blk {
			fn(&blk[j])
		}
	}
	for j := range b.cur {
		fn(&b.cur[j])
	}
	*b = findingBlocks{}
}
