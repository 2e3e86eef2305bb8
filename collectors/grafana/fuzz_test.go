package grafana

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/correlate"
)

// Any document in any shape (a model, an answer, a v2 resource, a
// ConfigMap): extraction does not panic, stays within its bounds, and
// every read it makes is an identifier whose parts the query holds and
// that the selector ties.
func FuzzDashboardReads(f *testing.F) {
	f.Add([]byte(`{"title":"x","panels":[{"title":"p","targets":[{"rawSql":"SELECT * FROM analytics.bf_1234_refunds"}]}]}`))
	f.Add([]byte(`{"panels":[{"type":"row","panels":[{"targets":[{"expr":"up{job=\"bf_9_replay\"}","rawQuery":true}]}]}],"rows":[{"panels":[]}]}`))
	f.Add([]byte("{\"panels\":[{\"targets\":[{\"query\":\"`p.d.bf_1_t` '\\u0000' \\\"\"}]}]}"))
	f.Add([]byte(`{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"panels":[{"targets":[{"sql":"bf_2.x"}]}]}]}]}]}]}]}]}]}]}]}`))
	f.Add([]byte(`{"apiVersion":"dashboard.grafana.app/v2beta1","kind":"Dashboard","metadata":{"name":"u"},"spec":{"title":"t","elements":{"p":{"kind":"Panel","spec":{"title":"x","data":{"kind":"QueryGroup","spec":{"queries":[{"kind":"PanelQuery","spec":{"refId":"A","query":{"kind":"DataQuery","spec":{"rawSql":"SELECT 1 FROM \"analytics\".\"bf_7003_refunds\""}}}}]}}}}}}}`))
	f.Add([]byte(`{"kind":"ConfigMapList","items":[{"kind":"ConfigMap","metadata":{"name":"c"},"data":{"a.json":"{\"panels\":[{\"targets\":[{\"expr\":\"x{job=\\\"bf_5_r\\\"}\"}]}]}"}}]}`))
	sel := correlate.MustSelector()
	f.Fuzz(func(t *testing.T, raw []byte) {
		dec, err := decodeDocs("", raw)
		if err != nil {
			return
		}
		for _, b := range dec.boards {
			qs := b.Queries
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
					// A read is clipped to one line: runs of spaces are one.
					if inText(oneSpace(q.text), oneSpace(r.Identifier)) {
						found = true
					}
				}
				if !found && !strings.HasSuffix(r.Identifier, "…") {
					t.Errorf("read %q is in no query", r.Identifier)
				}
			}
		}
	})
}

// Any query text: identifiers are non-empty, unrepeated and found in it
// (a qualified name unquoted: each of its parts).
func FuzzIdentifiers(f *testing.F) {
	f.Add("SELECT a FROM `proj.ds.bf_1_t` JOIN schema.tbl WHERE job = 'bf_2_replay'")
	f.Add(`sum(rate(x{job="bf-3"}[5m])) by (le)`)
	f.Add("````\"'..--$$")
	f.Add(`SELECT * FROM "analytics"."bf_7003_refunds" JOIN [dbo].[bf_1_x] ON ` + "`p`.`d`.`bf_2_t`")
	f.Fuzz(func(t *testing.T, text string) {
		ids := identifiers(text)
		seen := map[string]bool{}
		for _, id := range ids {
			if id == "" || seen[id] || !inText(text, id) {
				t.Fatalf("identifier %q of %q: empty, repeated or not in the text", id, text)
			}
			seen[id] = true
		}
	})
}

// inText says whether an identifier is in a text as written or, for a
// qualified name read unquoted, part by part.
func inText(text, id string) bool {
	if strings.Contains(text, id) {
		return true
	}
	for _, p := range strings.Split(id, ".") {
		if !strings.Contains(text, p) {
			return false
		}
	}
	return true
}

func oneSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
