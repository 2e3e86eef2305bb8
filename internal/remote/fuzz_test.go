package remote

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// FuzzSummarizeErrorBody: no panic; the summary is one line of at most
// SummaryLimit characters, empty for anything but a JSON object, and never
// holds a registered secret.
func FuzzSummarizeErrorBody(f *testing.F) {
	for _, s := range []string{
		`{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}`,
		`{"error":"invalid_grant","error_description":"expired"}`,
		`{"error":"not_found","reason":"Object Not Found"}`,
		`{"title":"Forbidden","detail":"no","status":403}`,
		`{"message":"Authorization: Bearer ` + hostile.Canary + `"}`,
		`{"message":"` + strings.ToUpper(hostile.Canary) + `"}`,
		"<html><pre>Authorization: Basic Z3Vlc3Q6Z3Vlc3Q=</pre></html>",
		"\xef\xbb\xbf{\"message\":\"bom\"}",
		`{"error":{"message":{"nested":true}},"message":null}`,
		"",
	} {
		f.Add([]byte(s))
	}
	redact.Add(hostile.Canary)
	f.Fuzz(func(t *testing.T, body []byte) {
		got := SummarizeErrorBody(body)
		if n := utf8.RuneCountInString(got); n > SummaryLimit {
			t.Fatalf("summary of %d characters", n)
		}
		if strings.IndexFunc(got, func(r rune) bool { return unicode.IsControl(r) || r == '\n' }) >= 0 {
			t.Fatalf("summary not on one line: %q", got)
		}
		trimmed := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
		if got != "" && (len(trimmed) == 0 || trimmed[0] != '{') {
			t.Fatalf("summary %q of a body that is not a JSON object", got)
		}
		if strings.Contains(strings.ToLower(got), hostile.Canary) {
			t.Fatalf("summary holds the secret: %q", got)
		}
	})
}
