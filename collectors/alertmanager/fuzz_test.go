package alertmanager

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

const fuzzMarker = "SECRET-MARKER-123"

// FuzzSilencesAnswer: any answer to GET /api/v2/silences decodes or fails
// without panicking and without quoting itself; every entry that passes
// check becomes a silence artifact with its URI, kind, scope and an end.
func FuzzSilencesAnswer(f *testing.F) {
	real, _ := os.ReadFile("testdata/silences-0.25.json")
	f.Add(real)
	for _, s := range []string{`[]`, `null`, ``, `{}`, `[{}]`, `[null]`, `[{"id":"a","status":{"state":"active"},"startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-01-02T00:00:00Z","matchers":[{"name":"backfill_id","value":"bf-1"}]}]`,
		`[{"id":"a","status":{"state":"active"},"startsAt":"x","endsAt":"y","matchers":[{"name":"","value":"(","isRegex":true}]}]`,
		`[{"id":"../../x","status":{"state":"pending"},"startsAt":"2026-01-01T00:00:00Z","endsAt":"9999-12-31T23:59:59Z","comment":"BF-1 ` + fuzzMarker + `","matchers":[{"name":"job","value":"bf_1|bf_2","isRegex":true,"isEqual":false}]}]`,
		`[{"id":1}]`, "\xef\xbb\xbf[]", `[{"matchers":[{"name":"severity","value":"(?i)CRIT.*","isRegex":true}]}]`,
	} {
		f.Add([]byte(s))
	}
	a := New()
	a.URL = "http://am:9093"
	if err := a.Init(env("am")); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var list []silence
		if err := remote.Unmarshal(data, &list); err != nil {
			if bytes.Contains(data, []byte(fuzzMarker)) && strings.Contains(err.Error(), fuzzMarker) {
				t.Fatalf("error quotes the answer: %v", err)
			}
			return
		}
		for _, s := range list {
			if err := s.check(); err != nil {
				continue
			}
			tied, ok := a.tie(s)
			if !ok {
				continue
			}
			art := a.artifact(tied, countMuted(nil))
			if art.Kind != model.KindSilence || art.Scope != ScopeSilences || !strings.HasPrefix(art.URI, "alertmanager://am/silences/") ||
				art.ExpiresAt.IsZero() || art.BackfillID == "" || art.Attr(model.AttrMatchers) == "" {
				t.Fatalf("silence artifact %+v", art)
			}
			if strings.ContainsAny(art.Attr(AttrComment)+art.Attr(model.AttrCreatedBy), "\n\r\x00") {
				t.Fatalf("comment or creator on more than one line: %+v", art.Attributes)
			}
		}
	})
}

// FuzzAlertsAnswer: any answer to GET /api/v2/alerts decodes or fails
// without panicking; counts never go negative and critical ones are among
// all.
func FuzzAlertsAnswer(f *testing.F) {
	real, _ := os.ReadFile("testdata/alerts-0.25.json")
	f.Add(real)
	for _, s := range []string{`[]`, `null`, `[{}]`, `[{"labels":null,"status":{"silencedBy":["a","a"]}}]`, `[{"labels":{"severity":"CRITICAL"},"status":{"silencedBy":["x"]}}]`, `{"x":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var alerts []alert
		if remote.Unmarshal(data, &alerts) != nil {
			return
		}
		for id, c := range countMuted(alerts) {
			if c.all < 1 || c.critical < 0 || c.critical > c.all {
				t.Fatalf("silence %q: %+v", id, c)
			}
		}
	})
}
