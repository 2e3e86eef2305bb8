package gcp

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	"google.golang.org/api/googleapi"
)

// FuzzSummarize: whatever a server answers (body, message, reason), the
// error text is one short line holding the status, and a bearer token
// the answer repeats never comes through.
func FuzzSummarize(f *testing.F) {
	f.Add(502, "<html><pre>Authorization: Bearer "+hostile.Canary+"</pre></html>", "", "")
	f.Add(403, `{"error":{"code":403,"message":"Access Denied","status":"PERMISSION_DENIED"}}`, "Access Denied", "accessDenied")
	f.Add(429, `{"error":{"code":429,"message":"token=`+hostile.Canary+`","status":"RESOURCE_EXHAUSTED"}}`, "", "")
	f.Add(500, `[{"error":{"code":500}}]`, "a\nb\tc\x00", "x y")
	f.Add(400, `{"error":{"status":"`+strings.Repeat("A", 100)+`"}}`, strings.Repeat("é", 500), "")
	f.Fuzz(func(t *testing.T, code int, body, message, reason string) {
		ge := &googleapi.Error{Code: code, Body: body, Message: message}
		if reason != "" {
			ge.Errors = []googleapi.ErrorItem{{Reason: reason, Message: message}}
		}
		msg := Summarize(ge).Error()
		if !strings.HasPrefix(msg, "HTTP ") {
			t.Fatalf("%q does not start with the status", msg)
		}
		if strings.ContainsAny(msg, "\n\r\x00") {
			t.Fatalf("%q is not one line", msg)
		}
		if n := utf8.RuneCountInString(msg); n > 2*remote.SummaryLimit+80 {
			t.Fatalf("%d characters: %q", n, msg)
		}
		if strings.Contains(msg, hostile.Canary) && !strings.Contains(message, hostile.Canary) && !strings.Contains(body, hostile.Canary) {
			t.Fatalf("canary from nowhere: %q", msg)
		}
		if strings.Contains(body, "Bearer "+hostile.Canary) && strings.Contains(msg, hostile.Canary) {
			t.Fatalf("a bearer token repeated by the server came through: %q", msg)
		}
		if Code(Summarize(ge)) != code {
			t.Fatalf("code lost: %d", Code(Summarize(ge)))
		}
	})
}

// FuzzRetryInfo: whatever error body a server sends, reading its
// RetryInfo never panics and never gives a negative delay.
func FuzzRetryInfo(f *testing.F) {
	f.Add(`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}`)
	f.Add(`{"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"-7s"}]}}`)
	f.Add(`{"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"99999999999s"}]}}`)
	f.Add(`{"error":{"details":[{"@type":"garbage"}]}}`)
	f.Add(`<html>`)
	f.Fuzz(func(t *testing.T, body string) {
		if d := restRetryDelay(&googleapi.Error{Code: 429, Body: body}); d < 0 {
			t.Fatalf("delay %s from %q", d, body)
		}
	})
}
