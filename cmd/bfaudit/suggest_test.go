package main

import (
	"github.com/bfaudit/bfaudit/internal/decodeerr"
	"strings"
	"testing"
)

// Trial friction 6: an unknown flag near a known one gets a suggestion.
func TestUnknownFlagSuggestion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", "--sevrity", "high"}, "unknown flag: --sevrity (did you mean --severity?)"},
		{[]string{"audit", "--fail-o=high"}, "unknown flag: --fail-o (did you mean --fail-on?)"},
		{[]string{"plan", "check", "--formt", "json", "x.yaml"}, "(did you mean --format?)"},
		{[]string{"fix", "--no-colr"}, "(did you mean --no-color?)"},
		{[]string{"collect", "--shrd", "0/2"}, "(did you mean --shard?)"},
	} {
		code, _, stderr := bfaudit(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
	code, _, stderr := bfaudit(t, "audit", "--wholly-unlike-any")
	if code != exitUsage || strings.Contains(stderr, "did you mean") {
		t.Errorf("a flag like none: exit %d, stderr %q", code, stderr)
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"sevrity", "severity", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"same", "same", 0}} {
		if got := decodeerr.Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
