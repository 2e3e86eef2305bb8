package postgres

import (
	"reflect"
	"testing"
	"time"
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
