package rules

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bfaudit/bfaudit/model"
)

// globMatch is a reference matcher for waiver globs: * any run of
// characters (slashes and newlines included), ? exactly one character.
func globMatch(pattern, s string) bool {
	p, t := []rune(pattern), []rune(s)
	// match[i][j]: p[:i] matches t[:j].
	prev := make([]bool, len(t)+1)
	prev[0] = true
	for i := 1; i <= len(p); i++ {
		cur := make([]bool, len(t)+1)
		cur[0] = prev[0] && p[i-1] == '*'
		for j := 1; j <= len(t); j++ {
			switch p[i-1] {
			case '*':
				cur[j] = prev[j] || cur[j-1]
			case '?':
				cur[j] = prev[j-1]
			default:
				cur[j] = prev[j-1] && p[i-1] == t[j-1]
			}
		}
		prev = cur
	}
	return prev[len(t)]
}

// FuzzWaiverMatches: a waiver's selector never panics, and its artifact
// glob matches exactly what the reference matcher does; errors name the key.
func FuzzWaiverMatches(f *testing.F) {
	for _, s := range [][4]string{
		{"bq://proj/ds/bf_1234_*", "bq://proj/ds/bf_1234_tmp", "BF-1234", "bf-1234"},
		{"*", "anything/at/all", "", ""},
		{"k8s://ns/job?", "k8s://ns/jobs", "bf_9", "BF-9"},
		{"a*b?c", "a\nxb\nc", "", ""},
		{"[x](y)+.^$|\\", "[x](y)+.^$|\\", "", ""},
		{"**??**", "ab", "", ""},
		{"é*ü", "éaaü", "", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, glob, uri, wBackfill, fBackfill string) {
		if len(glob) > 200 || len(uri) > 200 {
			return // the reference matcher is quadratic
		}
		w := Waiver{Rule: "BF005", Artifact: glob, Backfill: wBackfill, Reason: "r", Approver: "a", Expires: exp, Key: "waivers[0]"}
		if err := w.Validate(); err != nil {
			if glob != "" && !strings.Contains(err.Error(), "artifact") && !strings.Contains(err.Error(), "rule") {
				t.Fatalf("error %q does not name the key", err)
			}
			return
		}
		fd := &model.Finding{RuleID: "bf005", BackfillID: fBackfill, Key: model.ParseID(fBackfill), ArtifactURI: uri}
		got := w.Matches(fd)
		if glob == "" || !utf8.ValidString(glob) || !utf8.ValidString(uri) {
			return // invalid UTF-8 reads as U+FFFD on both sides, differently
		}
		want := globMatch(glob, uri) && (wBackfill == "" || model.SameID(wBackfill, fBackfill))
		if got != want {
			t.Fatalf("glob %q on %q (backfill %q vs %q): Matches = %v, want %v", glob, uri, wBackfill, fBackfill, got, want)
		}
		_ = w.ID()
	})
}
