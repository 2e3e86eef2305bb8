package collectors

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bfaudit/bfaudit/internal/hostile"
	"github.com/bfaudit/bfaudit/internal/redact"
)

// FuzzParseDuration: no panic, no wrap-around: whatever parses is within
// MaxDuration, a whole-day value is exactly that many days, and an error
// names the input.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30d", "72h", "1h30m", "-2d", "100000d", "213504d", "106752d", "99999999999999999999d", "2562047h", "0", "d", "-d", " 7d ", "1.5d", "+3d", "٣d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(strings.TrimSpace(s))) {
				t.Fatalf("error %q does not name the input %q", err, s)
			}
			return
		}
		if d > MaxDuration || d < -MaxDuration {
			t.Fatalf("ParseDuration(%q) = %v, beyond the limit", s, d)
		}
		if num, ok := strings.CutSuffix(strings.TrimSpace(s), "d"); ok && wholeNumber(num) && d%(24*time.Hour) != 0 {
			t.Fatalf("ParseDuration(%q) = %v, not whole days", s, d)
		}
	})
}

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
