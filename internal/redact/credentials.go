package redact

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// credentialRE finds what looks like a credential echoed into a message by
// a server or a proxy, whatever secrets were registered: an auth header
// and its value, a bearer or basic credential, and key=value pairs that
// name a token, key, secret or password. An auth header's value is
// masked whatever its scheme (Bearer, Basic, Negotiate, AWS4-HMAC-SHA256).
var credentialRE = regexp.MustCompile(`(?i)\b((?:proxy-)?authorization|cookie|set-cookie|x-api-key|api-key|private-token)\s*[:=]\s*(?:[A-Za-z][\w-]*\s+)?\S+` +
	`|\b(bearer|basic)\s+\S+` +
	`|\b((access_|refresh_|id_)?token|api_?key|key|secret|client_secret|password|passwd|pwd)\s*[:=]\s*\S+`)

// Credentials masks what looks like a credential in s (see credentialRE).
// It does not mask registered secrets: String does.
func Credentials(s string) string {
	return credentialRE.ReplaceAllString(s, Mask)
}

// Line makes text from a server safe and short for an error, a log or a
// report: registered secrets and credential-looking values masked, control
// characters and runs of space collapsed to one space, and at most max
// characters (max <= 0: no cap), the cut marked with "…".
func Line(s string, max int) string {
	s = String(s)
	// One line first, so "Bearer\u00a0token" is seen as "Bearer token".
	s = OneLine(s)
	s = Credentials(s)
	return Truncate(s, max)
}

// Clip puts text from a server or a file on one line of at most max
// characters, as Line does, but masks nothing: for text kept as written
// (a rule's expression, a silence's comment) and for messages about it.
func Clip(s string, max int) string { return Truncate(OneLine(s), max) }

// OneLine collapses control characters, invalid UTF-8 and runs of space
// into one space.
func OneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || !unicode.IsPrint(r) || r == utf8.RuneError
	}), " ")
}

// Truncate cuts s to at most n characters, the last one "…" when cut;
// n <= 0 leaves s whole.
func Truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
