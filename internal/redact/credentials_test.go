package redact

import (
	"strings"
	"testing"
)

// The one scrubber covers what each of the earlier two did: header
// values whatever the scheme, bearer and basic credentials, and key=value
// pairs naming a secret.
func TestCredentialsMasksWhatLooksLikeACredential(t *testing.T) {
	for _, in := range []string{
		"Authorization: Bearer s3cr3t-value",
		"authorization=Negotiate s3cr3t-value",
		"Proxy-Authorization: Basic s3cr3t-value",
		"Cookie: session=s3cr3t-value",
		"X-Api-Key: s3cr3t-value",
		"Private-Token: s3cr3t-value",
		"upstream said bearer s3cr3t-value",
		"access_token=s3cr3t-value",
		"api_key: s3cr3t-value",
		"client_secret=s3cr3t-value",
		"password=s3cr3t-value",
	} {
		got := Credentials("before " + in + " after")
		if strings.Contains(got, "s3cr3t") || !strings.Contains(got, Mask) || !strings.HasPrefix(got, "before ") {
			t.Errorf("Credentials(%q) = %q", in, got)
		}
	}
	if got := Credentials("table bf_1234_tmp not found"); got != "table bf_1234_tmp not found" {
		t.Errorf("ordinary text changed: %q", got)
	}
}

func TestLineIsOneCappedLine(t *testing.T) {
	Add("registered-secret-123")
	defer Reset()
	got := Line("first\nsecond\tREGISTERED-SECRET-123 "+strings.Repeat("x", 300), 50)
	if strings.ContainsAny(got, "\n\t") || strings.Contains(strings.ToLower(got), "registered-secret") || len([]rune(got)) != 50 || !strings.HasSuffix(got, "…") {
		t.Errorf("Line = %q", got)
	}
}

// Clip keeps a PromQL matcher or a comment as written (Line would mask
// key="..."), on one line and cut.
func TestClipKeepsTextAsWrittenOnOneCappedLine(t *testing.T) {
	if got := Clip("sum(x{key=\"v\"})\n\tby (job)", 100); got != `sum(x{key="v"}) by (job)` {
		t.Errorf("Clip kept = %q", got)
	}
	if got := Clip("abcdef", 4); got != "abc…" {
		t.Errorf("Clip cut = %q", got)
	}
}
