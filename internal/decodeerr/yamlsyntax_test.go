package decodeerr

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// Each error is placed on the line a person would fix: the decoder's own
// messages, from documents that break on a known line.
func TestYAMLSyntaxPlacesTheLine(t *testing.T) {
	for _, c := range []struct {
		doc  string
		line int
	}{
		{"rules:\n  disabled: [BF001, BF002\nsources: []\n", 2}, // parser: unclosed flow sequence
		{"a: 1\nb: {x: 1\nc: 2\n", 2},                           // parser: unclosed flow mapping
		{"a: 1\nb: c: d\n", 2},                                  // scanner: mapping values not allowed
		{"a: 1\n\tb: 2\n", 2},                                   // scanner: a tab
		{"sources: [\n", 1},                                     // parser: the file ends where the list's next value belongs
		{"a:\n  - x\n  y: 1\n", 2},                              // parser: the sequence the key breaks starts on line 2
	} {
		var v any
		err := yaml.Unmarshal([]byte(c.doc), &v)
		if err == nil {
			t.Fatalf("%q decoded", c.doc)
		}
		if line, msg := YAMLSyntax(err, []byte(c.doc)); line != c.line {
			t.Errorf("%q: line %d (%s), want %d; the decoder said %q", c.doc, line, msg, c.line, err)
		}
	}
}
