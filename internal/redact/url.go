package redact

import (
	"net/url"
	"strings"
)

// secretWords mark a query parameter whose value may be a credential
// (token=, access_token=, key=, X-Goog-Signature=, page tokens too).
var secretWords = []string{"token", "key", "secret", "password", "passwd", "auth", "sig", "credential", "code", "session", "email"}

// URL returns an address as it may be shown: no user or password, no
// fragment, the values of query parameters that may hold a secret masked,
// and every registered secret (a webhook URL's path) masked. It is the
// one way an address goes into an error, a log line or a report.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return URLOf(u)
}

// URLOf is URL for a parsed address; nil gives "".
func URLOf(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	if c.RawQuery != "" {
		q := c.Query()
		for k := range q {
			if secretParam(k) {
				for i := range q[k] {
					q[k][i] = Mask
				}
			}
		}
		c.RawQuery = q.Encode()
	}
	// Encode escapes the mask's brackets; show it as String does.
	s := strings.ReplaceAll(c.String(), url.QueryEscape(Mask), Mask)
	return String(s)
}

func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
