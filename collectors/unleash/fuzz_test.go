package unleash

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

const fuzzMarker = "SECRET-MARKER-123"

func fuzzCollector(f *testing.F) *Unleash {
	u := New()
	u.URL = "http://unleash:4242"
	if err := u.Init(testEnv("unl")); err != nil {
		f.Fatal(err)
	}
	return u
}

// FuzzSearchAnswer: any answer to GET /api/admin/search/features decodes
// or fails without panicking and without quoting itself; every entry that
// passes check and ties becomes a feature_flag artifact with its URI,
// scope, a state that agrees with its environments, and one-line text.
func FuzzSearchAnswer(f *testing.F) {
	for _, p := range []string{"testdata/export/projects/default/features.json", "testdata/export/projects/default/archived.json"} {
		real, _ := os.ReadFile(p)
		f.Add(real)
	}
	for _, s := range []string{`{}`, `null`, ``, `{"features":null}`, `{"features":[{}]}`, `{"features":[null]}`, `{"features":[{"name":1}]}`,
		`{"features":[{"name":"bf-1-x","environments":[{"name":"production","enabled":true,"type":"production"}]}],"total":1}`,
		`{"features":[{"name":"../../x","description":"BF-1 ` + fuzzMarker + `\n\r","createdAt":"x","tags":[{"type":"backfill","value":"bf-2\n"}]}]}`,
		`{"features":[{"name":"x","archivedAt":"2026-01-01T00:00:00Z","tags":[{"type":"backfill","value":"BF-3"},{"type":"simple","value":"replay-position:enabled"}]}]}`,
		"\xef\xbb\xbf{\"features\":[]}", `{"features":[{"name":"bf-4","environments":[{"name":""}]}]}`,
	} {
		f.Add([]byte(s))
	}
	u := fuzzCollector(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var page searchPage
		if err := remote.Unmarshal(data, &page); err != nil {
			if bytes.Contains(data, []byte(fuzzMarker)) && strings.Contains(err.Error(), fuzzMarker) {
				t.Fatalf("error quotes the answer: %v", err)
			}
			return
		}
		for _, fl := range page.Features {
			if fl.Name == "" || fl.check() != nil {
				continue
			}
			tied, ok := u.tie("p/q", fl)
			if !ok {
				continue
			}
			art := u.artifact(tied, map[string]string{"production": "production"})
			if art.Kind != model.KindFeatureFlag || art.BackfillID == "" || !strings.HasPrefix(art.URI, "unleash://unl/projects/p%2Fq/features/") ||
				!model.ScopeWithin(art.Scope, model.JoinScope("p/q")) || !art.State.IsValid() {
				t.Fatalf("flag artifact %+v", art)
			}
			on := art.Attr(model.AttrEnabledIn) != ""
			if (art.State == model.StateEnabled) != on || (art.State == model.StateDeleted) != (art.Attr(model.AttrArchived) == "true") {
				t.Fatalf("state %s disagrees with its attributes %v", art.State, art.Attributes)
			}
			for k, v := range art.Attributes.All() {
				if strings.ContainsAny(v, "\n\r\x00") {
					t.Fatalf("attribute %s on more than one line: %q", k, v)
				}
			}
		}
	})
}

// FuzzFlagDetail: any answer to GET /api/admin/projects/{p}/features/{n}
// decodes or fails without panicking; the strategies it lists are names
// without repeats.
func FuzzFlagDetail(f *testing.F) {
	for _, p := range []string{"bf-1234-replay-guard", "bf_1234_dual_write", "ledger-shadow-read"} {
		real, _ := os.ReadFile("testdata/export/projects/default/features/" + p + ".json")
		f.Add(real)
	}
	for _, s := range []string{`{}`, `{"environments":[{"name":"a","strategies":[{"name":"x"},{"name":"x"},{"name":"y","disabled":true}]}]}`, `{"environments":[{"strategies":null}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d flag
		if remote.Unmarshal(data, &d) != nil {
			return
		}
		_ = d.check()
		names := strategyNames(d.Environments)
		seen := map[string]bool{}
		for _, n := range strings.Split(names, ",") {
			if names != "" && (n == "" || seen[n]) {
				t.Fatalf("strategies %q", names)
			}
			seen[n] = true
		}
	})
}
