package postgres

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseComment checks the COMMENT parser never panics, keeps only
// non-empty keys and values, and names the key when expires= cannot be
// read (the problem is shown on the artifact).
func FuzzParseComment(f *testing.F) {
	for _, seed := range []string{
		"backfill_id=BF-1234 expires=2026-03-01 owner=alice",
		"temp copy for refunds backfill_id=BF-1, expires=2026-03-01T00:00:00Z;",
		`owner="bob" expires='never'`,
		"expires=2026-02-30 expires=2026-01-01",
		"==  =x x= backfill=BF-1=2",
		"EXPIRES=2026-01-01T25:00:00Z\towner=\u00e9\n",
		"", " ", "\xff\xfe=\x00",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := parseComment(s)
		for k, v := range c.Labels {
			if k == "" || v == "" {
				t.Errorf("empty key or value kept: %q=%q", k, v)
			}
		}
		if c.Problem != "" {
			if !strings.Contains(c.Problem, "expires=") {
				t.Errorf("problem %q does not name the key", c.Problem)
			}
			if utf8.ValidString(s) && !utf8.ValidString(c.Problem) {
				t.Errorf("problem %q is not valid UTF-8", c.Problem)
			}
		}
		if !c.Expires.IsZero() && c.Expires.Location().String() != "UTC" {
			t.Errorf("expires %v not in UTC", c.Expires)
		}
	})
}
