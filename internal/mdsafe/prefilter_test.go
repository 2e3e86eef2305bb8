package mdsafe

import (
	"strings"
	"testing"
)

// defuseAlways is Defuse without the checks that skip a pattern.
func defuseAlways(s string) string {
	s = mentionPattern.ReplaceAllString(s, "${1}@"+ZWJ+"${2}")
	s = issueRefPat.ReplaceAllString(s, "#"+ZWJ+"$1")
	return ghRefPattern.ReplaceAllString(s, "$1-"+ZWJ+"$2")
}

// The checks that skip a pattern only skip it where it cannot match.
func FuzzDefuseSkipsOnlyWhatCannotMatch(f *testing.F) {
	for _, s := range []string{"", "@a", "x@a", "a@b.c", "é@x", "_@x", "@_", "#1", "a#", "GH-1", "gh-12", "xgh-1", "Gh-", "BF-1234", "ǵh-1", "@ñ", "see #12 and @bob, GH-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Defuse(s), defuseAlways(s); got != want {
			t.Errorf("Defuse(%q) = %q, want %q", s, got, want)
		}
		if got, want := Text(s), textAlways(s); got != want {
			t.Errorf("Text(%q) = %q, want %q", s, got, want)
		}
	})
}

// textAlways is Text without the check that skips the URL search.
func textAlways(s string) string {
	s = OneLine(s)
	var b strings.Builder
	last := 0
	for _, m := range urlPattern.FindAllStringIndex(s, -1) {
		end := m[0] + len(trimURL(s[m[0]:m[1]]))
		b.WriteString(defuseAlways(escaper.Replace(s[last:m[0]])))
		b.WriteString(Code(s[m[0]:end]))
		last = end
	}
	b.WriteString(defuseAlways(escaper.Replace(s[last:])))
	return b.String()
}
