package grafana

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/correlate"
)

// Any dashboard model and any query text: extraction does not panic,
// stays within its bounds, and every read it makes is an identifier the
// query holds that the selector ties.
func FuzzDashboardReads(f *testing.F) {
	f.Add([]byte(`{"title":"x","panels":[{"title":"p","targets":[{"rawSql":"SELECT * FROM analytics.bf_1234_refunds"}]}]}`))
	f.Add([]byte(`{"panels":[{"type":"row","panels":[{"targets":[{"expr":"up{job=\"bf_9_replay\"}","rawQuery":true}]}]}],"rows":[{"panels":[]}]}`))
	f.Add([]byte("{\"panels\":[{\"targets\":[{\"query\":\"`p.d.bf_1_t` '\\u0000' \\\"\"}]}]}"))
	f.Add([]byte(`{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"targets":[{"sql":"bf_2.x"}]}]}]}]}]}]}]}]}]}]}]}`))
	sel := correlate.MustSelector()
	f.Fuzz(func(t *testing.T, raw []byte) {
		var d dashboardJSON
		if json.Unmarshal(raw, &d) != nil {
			return
		}
		qs := dashboardQueries(d)
		if len(qs) > maxQueries {
			t.Fatalf("%d queries, cap %d", len(qs), maxQueries)
		}
		rs := reads(sel, qs)
		if len(rs) > maxReads {
			t.Fatalf("%d reads, cap %d", len(rs), maxReads)
		}
		for _, r := range rs {
			if _, _, ok := sel.Match("", r.Identifier, nil); !ok || r.BackfillID == "" {
				t.Errorf("read %+v is not tied", r)
			}
			found := false
			for _, q := range qs {
				if strings.Contains(q.text, r.Identifier) {
					found = true
				}
			}
			if !found && !strings.HasSuffix(r.Identifier, "…") {
				t.Errorf("read %q is in no query", r.Identifier)
			}
		}
	})
}

// Any query text: identifiers are non-empty, unrepeated and found in it.
func FuzzIdentifiers(f *testing.F) {
	f.Add("SELECT a FROM `proj.ds.bf_1_t` JOIN schema.tbl WHERE job = 'bf_2_replay'")
	f.Add(`sum(rate(x{job="bf-3"}[5m])) by (le)`)
	f.Add("````\"'..--$$")
	f.Fuzz(func(t *testing.T, text string) {
		ids := identifiers(text)
		seen := map[string]bool{}
		for _, id := range ids {
			if id == "" || seen[id] || !strings.Contains(text, id) {
				t.Fatalf("identifier %q of %q: empty, repeated or not in the text", id, text)
			}
			seen[id] = true
		}
	})
}
