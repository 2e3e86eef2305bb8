package rules

import (
	"slices"
	"strings"
	"unsafe"
)

// chunks holds copies of what the staged findings keep of the rules'
// text (messages, fingerprints, evidence) packed in large chunks. A rule
// makes each message and evidence line among its own short-lived garbage
// (the values it formats them from, the lines it builds per artifact);
// kept where they were made, the findings' texts pinned the small-object
// spans of that garbage, and a quarter of the heap under a million
// artifacts' findings was free slots no one reused (160 of 1,280 MiB after
// the precedence). Copied into chunks, the originals die young with the
// rest, and the chunks are dense.
type chunks struct {
	text  []byte
	lists []string
}

const (
	textChunk = 64 << 10 // bytes a chunk of text holds
	listChunk = 4096     // strings a chunk of lists holds
)

// keep returns a copy of s in a chunk. The bytes of a chunk are never
// written again once a string is made of them: later copies go after them,
// or into a new chunk.
func (c *chunks) keep(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) > textChunk/8:
		return strings.Clone(s) // a large one alone
	case len(s) > cap(c.text)-len(c.text):
		c.text = make([]byte, 0, textChunk)
	}
	at := len(c.text)
	c.text = append(c.text, s...)
	return unsafe.String(&c.text[at], len(s))
}

// keepList returns a copy of l in a chunk, its capacity its length, so
// that an append to it copies it instead of writing into the next list.
func (c *chunks) keepList(l []string) []string {
	switch {
	case len(l) == 0:
		return l
	case len(l) > listChunk/8:
		return slices.Clone(l)
	case len(l) > cap(c.lists)-len(c.lists):
		c.lists = make([]string, 0, listChunk)
	}
	at := len(c.lists)
	c.lists = append(c.lists, l...)
	return c.lists[at:len(c.lists):len(c.lists)]
}
