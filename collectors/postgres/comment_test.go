package postgres

import (
	"reflect"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

func TestParseComment(t *testing.T) {
	tests := []struct {
		in      string
		labels  map[string]string
		expires time.Time
		owner   string
		problem bool
	}{
		{in: "backfill_id=BF-1234 expires=2026-03-01",
			labels:  map[string]string{"backfill_id": "BF-1234", "expires": "2026-03-01"},
			expires: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{in: "copy for the refunds fix: backfill_id=BF-7, owner=alice;",
			labels: map[string]string{"backfill_id": "BF-7", "owner": "alice"}, owner: "alice"},
		{in: "expires=2026-03-01T12:00:00+02:00",
			labels:  map[string]string{"expires": "2026-03-01T12:00:00+02:00"},
			expires: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)},
		{in: "backfill-id='bf_9' Expires=soon",
			labels:  map[string]string{"backfill-id": "bf_9", "Expires": "soon"},
			problem: true},
		{in: "just a description, no pairs = here", labels: nil},
		{in: "", labels: nil},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			c := parseComment(tc.in)
			if !reflect.DeepEqual(c.Labels, tc.labels) {
				t.Errorf("labels=%v, want %v", c.Labels, tc.labels)
			}
			if !c.Expires.Equal(tc.expires) || c.Owner != tc.owner || (c.Problem != "") != tc.problem {
				t.Errorf("expires=%s owner=%q problem=%q", c.Expires, c.Owner, c.Problem)
			}
		})
	}
}

func TestCommentKeepLabel(t *testing.T) {
	tests := []struct{ comment, until, reason string }{
		{"copy of events backfill_id=BF-7\nbfaudit-keep-until: 2027-01-31\nbfaudit-keep-reason: finance reads it until the audit",
			"2027-01-31", "finance reads it until the audit"},
		{"backfill_id=BF-7 bfaudit-keep-until=2027-01-31 bfaudit-keep-reason=q1-audit", "2027-01-31", "q1 audit"},
		{"bfaudit-keep-until: someday", "someday", ""},
		{"backfill_id=BF-7 expires=2026-03-01", "", ""},
	}
	for _, tc := range tests {
		a := (&Postgres{}).objectArtifact("db", "postgres://h/db/public/t", "public.t", parseComment(tc.comment), match{id: "BF-7", how: "label"})
		if a.Attr(model.AttrKeepUntil) != tc.until || a.Attr(model.AttrKeepReason) != tc.reason {
			t.Errorf("%q: keep_until/keep_reason = %q/%q, want %q/%q", tc.comment, a.Attr(model.AttrKeepUntil), a.Attr(model.AttrKeepReason), tc.until, tc.reason)
		}
	}
}
