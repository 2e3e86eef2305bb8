package postgres

import (
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Comment keys bfaudit reads from COMMENT ON TABLE / SCHEMA / ROLE. The
// backfill id itself is read through the selector's label keys
// (backfill_id, backfill-id, backfill by default), so it is not listed here.
const (
	commentExpires = "expires"
	commentOwner   = "owner"
)

// parsedComment is what a catalog comment says about an object.
type parsedComment struct {
	// Labels holds every key=value pair, keys as written.
	Labels map[string]string
	// Expires is the expires= value; zero when absent or unreadable.
	Expires time.Time
	// Owner is the owner= value.
	Owner string
	// Problem says why expires= could not be read, for the artifact's
	// attributes; empty when there was nothing wrong.
	Problem string
	// Text is the comment as written, for its keep lines.
	Text string
}

// keepOn copies the comment's keep label onto the artifact: lines
// "bfaudit-keep-until: 2027-01-31" and "bfaudit-keep-reason: ..." (a reason
// with spaces), or the pairs bfaudit-keep-until=2027-01-31 and
// bfaudit-keep-reason=finance-audit (- and _ read as spaces, as in cloud
// labels); a pair wins over a line. PostgreSQL records no author of a
// comment, so keep_by stays empty.
func (c parsedComment) keepOn(a *model.Artifact) {
	a.KeepFromLabels(c.Labels)
	a.KeepFromText(c.Text)
}

// parseComment reads a comment of space-separated key=value pairs, e.g.
// "backfill_id=BF-1234 expires=2026-03-01 owner=alice". Words without '='
// are free text and ignored, so "temp copy for refunds backfill_id=BF-1" is
// fine too. A trailing ',' or ';' on a pair is dropped, because people
// write lists that way.
func parseComment(s string) parsedComment {
	c := parsedComment{Text: s}
	for _, word := range strings.Fields(s) {
		word = strings.TrimRight(word, ",;")
		k, v, ok := strings.Cut(word, "=")
		v = strings.Trim(v, `"'`)
		if !ok || k == "" || v == "" {
			continue
		}
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels[k] = v
		switch strings.ToLower(k) {
		case commentExpires:
			t, err := parseExpires(v)
			if err != nil {
				c.Problem = err.Error()
				continue
			}
			c.Expires = t
		case commentOwner:
			c.Owner = v
		}
	}
	return c
}

// parseExpires accepts a date (midnight UTC) or an RFC 3339 time.
func parseExpires(v string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("expires=%q: expected a date (2026-03-01) or an RFC 3339 time", v)
}
