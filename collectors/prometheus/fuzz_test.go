package prometheus

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

const fuzzMarker = "SECRET-MARKER-123"

// fuzzCollector reads a server (never called: the targets hand answers
// and files to the parsers directly).
func fuzzCollector(f *testing.F) *Prometheus {
	p := New()
	p.URL = "http://prometheus.invalid:9090"
	if err := p.Init(env("prometheus", "")); err != nil {
		f.Fatal(err)
	}
	return p
}

// checkArtifact holds what every reported rule must be.
func checkArtifact(t *testing.T, a model.Artifact, scopePrefix string) {
	t.Helper()
	if a.Kind != model.KindAlert || a.BackfillID == "" || a.Correlation == "" || !strings.HasPrefix(a.URI, "prometheus://prometheus/") ||
		!strings.HasPrefix(a.Scope, scopePrefix) || a.Attr(model.AttrExpr) == "" {
		t.Fatalf("rule artifact %+v", a)
	}
	if w := a.Attr(model.AttrWatchesOnly); w != "true" && w != "false" {
		t.Fatalf("watches_backfill %q", w)
	}
}

// FuzzRulesAnswer: any answer to GET /api/v1/rules decodes or fails
// without panicking and without quoting itself; what decodes becomes
// rules under the rules unit or errors at a group under it.
func FuzzRulesAnswer(f *testing.F) {
	real, _ := os.ReadFile("testdata/rules-2.42.json")
	f.Add(real)
	for _, s := range []string{`null`, `{}`, `{"status":"success","data":{"groups":[]}}`, `{"status":"success","data":{"groups":null}}`,
		`{"status":"success","data":{"groups":[{"name":"bf-1","file":"","rules":[{"type":"alerting","name":"A","query":"max(","lastEvaluation":"x","alerts":[{"activeAt":"0"}]}]}]}}`,
		`{"status":"success","data":{"groups":[{"name":"","rules":[{}]}],"groupNextToken":"t"}}`,
		`{"status":"success","data":{"groups":[{"name":"g/h","file":"../%2F","rules":[{"type":"recording","name":"bf_1:x","query":"up{backfill_id=~\"bf-1|bf-2\"}","duration":1e308,"labels":{"owner":"` + fuzzMarker + `"}}]}]}}`,
		`{"status":"error","errorType":"bad_data","error":"` + fuzzMarker + `"}`, "\xef\xbb\xbf{}", `{"status":"success","data":{"groups":[{"rules":null}]}} x`,
	} {
		f.Add([]byte(s))
	}
	p := fuzzCollector(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var ans rulesAnswer
		if err := remote.Unmarshal(data, &ans); err != nil {
			if bytes.Contains(data, []byte(fuzzMarker)) && strings.Contains(err.Error(), fuzzMarker) {
				t.Fatalf("error quotes the answer: %v", err)
			}
			return
		}
		if ans.Data == nil || ans.Data.Groups == nil {
			return
		}
		groups := p.apiGroups(*ans.Data.Groups, func(scope string, err error) {
			if scope != scopeRules && !strings.HasPrefix(scope, scopeRules+"/") {
				t.Fatalf("error outside the rules unit: %q %v", scope, err)
			}
		})
		for _, g := range groups {
			p.emit(g, func(a model.Artifact) { checkArtifact(t, a, scopeRules+"/") })
		}
	})
}

// FuzzRuleFile: no file content panics the reader; a file either fails
// with an error or yields groups whose reported rules lie in its unit.
func FuzzRuleFile(f *testing.F) {
	for _, s := range []string{bfRules, prometheusRules, prometheusRuleList, "", "null", "groups: []", "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: max(\n",
		"kind: List\nitems: [1, {kind: PrometheusRule}]\n", "--- \n--- \nkind: PrometheusRule\nmetadata: {name: bf-1}\nspec: {groups: [{name: g, rules: [{record: bf_1:x, expr: up}]}]}\n",
		"a: &a [*a, *a, *a]\n", "groups:\n  - name: bf-1\n    rules:\n      - alert: A\n        expr: up\n        annotations: {summary: '{{ .Labels.x'}\n",
	} {
		f.Add([]byte(s))
	}
	p := fuzzCollector(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := p.parseFile("rules/x.yml", data)
		if err != nil {
			return
		}
		if fr.skipped != "" && len(fr.groups) > 0 {
			t.Fatalf("skipped as %q, yet %d groups", fr.skipped, len(fr.groups))
		}
		for _, g := range fr.groups {
			if g.scope != "rules/x.yml" {
				t.Fatalf("group %q at %q", g.name, g.scope)
			}
			p.emit(g, func(a model.Artifact) { checkArtifact(t, a, "rules/x.yml") })
		}
	})
}

// FuzzWatch: no expression panics the analysis; ids come only with a
// parsed expression, and an expression said to watch only backfill series
// names at least one.
func FuzzWatch(f *testing.F) {
	for _, s := range []string{`up`, `max(x{backfill_id="bf-1"}) > 1`, `{__name__=~"bf_1_.*|bf_2_x"}`, `x{backfill_id=~"(?i)bf-1"}`, `vector(1)`,
		`x{backfill_id=~"bf-1|bf-2|bf-3|"}`, `sum by (backfill_id) (rate(x{backfill_id!~"bf-1"}[5m]))`, `label_replace(x, "backfill_id", "bf-9", "", "")`, `(((`} {
		f.Add(s)
	}
	p := fuzzCollector(f)
	f.Fuzz(func(t *testing.T, expr string) {
		w := p.watch(expr)
		if w.err != nil && (len(w.ids) > 0 || w.only) {
			t.Fatalf("%q: an unparsed expression says %+v", expr, w)
		}
		if w.only && len(w.ids) == 0 {
			t.Fatalf("%q watches only backfill series but names none", expr)
		}
		for _, id := range w.ids {
			if id == "" {
				t.Fatalf("%q: an empty id", expr)
			}
		}
	})
}
