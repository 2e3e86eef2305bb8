package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// What the chunks keep reads back as given, whatever its size, and a
// kept list grown by append (the precedence adds a folded line to a
// finding's evidence) leaves the lists kept after it as they were.
func TestChunksKeepWhatTheyAreGiven(t *testing.T) {
	var c chunks
	var texts, want []string
	for i := range 3000 {
		s := strings.Repeat(fmt.Sprint(i%10), i%(textChunk/4))
		texts, want = append(texts, c.keep(s)), append(want, s)
	}
	if !slices.Equal(texts, want) {
		t.Error("kept texts differ from the texts given")
	}
	first := c.keepList([]string{"a", "b"})
	second := c.keepList([]string{"c"})
	grown := append(first, "folded")
	if !slices.Equal(grown, []string{"a", "b", "folded"}) || !slices.Equal(second, []string{"c"}) || !slices.Equal(first, []string{"a", "b"}) {
		t.Errorf("after an append to the first list: first %q, grown %q, second %q", first, grown, second)
	}
	long := make([]string, listChunk)
	if got := c.keepList(long); len(got) != listChunk {
		t.Errorf("a list longer than a chunk kept as %d strings", len(got))
	}
}
