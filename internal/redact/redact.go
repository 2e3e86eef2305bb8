// Package redact masks secrets in every text that leaves the process:
// errors, logs, reports, saved estates, the history store, sink messages.
// Config loading registers each configured secret (tokens, passwords,
// the password of a DSN, webhook URLs); writers pass text through String.
// Matching is case-insensitive, so "HTTP://HOOKS..." is masked like
// "https://hooks...", and a secret is masked wherever it appears, also
// inside a longer string (a header echoed back in an error body).
package redact

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mask replaces a secret.
const Mask = "[REDACTED]"

// minLen keeps short values (a port, "true") from masking ordinary text.
const minLen = 6

var (
	mu      sync.RWMutex
	secrets []string
	re      *regexp.Regexp
)

// Add registers secrets to mask from now on. Values shorter than six
// characters are ignored. For URLs and DSNs the password, the user:password
// pair and the query values that look like keys are registered too, and a
// webhook URL's path (which is its secret) without the scheme.
func Add(values ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, v := range values {
		for _, s := range derive(strings.TrimSpace(v)) {
			if len(s) >= minLen && !slices.Contains(secrets, s) {
				secrets = append(secrets, s)
			}
		}
	}
	compile()
}

// Reset forgets every secret (tests).
func Reset() {
	mu.Lock()
	defer mu.Unlock()
	secrets, re = nil, nil
}

// derive lists what of v must not leak: v itself, and its parts when it is
// a URL or DSN (a password alone can be echoed back).
func derive(v string) []string {
	if v == "" {
		return nil
	}
	out := []string{v}
	if u, err := url.Parse(v); err == nil && u.Host != "" {
		if u.User != nil {
			if p, ok := u.User.Password(); ok {
				out = append(out, p, u.User.Username()+":"+p)
			}
		}
		if len(u.Path) > 8 { // a webhook's path is its secret
			out = append(out, u.Host+u.Path)
		}
		for k, vals := range u.Query() {
			// Only values whose name says they are secret: a DSN's
			// sslmode=disable must not mask every "disable" in the report.
			if secretParam(k) {
				out = append(out, vals...)
			}
		}
	}
	// key=value DSNs: password=...
	for _, f := range strings.Fields(v) {
		if k, val, ok := strings.Cut(f, "="); ok && strings.EqualFold(k, "password") {
			out = append(out, strings.Trim(val, `'"`))
		}
	}
	return out
}

func compile() {
	if len(secrets) == 0 {
		re = nil
		return
	}
	// Longest first, so a secret that contains another is masked whole.
	sorted := slices.Clone(secrets)
	slices.SortFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	parts := make([]string, len(sorted))
	for i, s := range sorted {
		parts[i] = regexp.QuoteMeta(s)
	}
	re = regexp.MustCompile(`(?i)` + strings.Join(parts, "|"))
}

// String masks every registered secret in s.
func String(s string) string {
	mu.RLock()
	r := re
	mu.RUnlock()
	if r == nil || s == "" {
		return s
	}
	return r.ReplaceAllLiteralString(s, Mask)
}

// Error masks an error's text; nil stays nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	s := String(err.Error())
	if s == err.Error() {
		return err
	}
	return &redacted{msg: s, err: err}
}

// redacted keeps errors.Is/As working on the original while its text is
// the masked one.
type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }
