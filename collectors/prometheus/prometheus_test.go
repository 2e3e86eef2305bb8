package prometheus

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/testkit/hostile"
	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

const realPrefix = "prometheus://prom/rules/rules.yml/bf-1234-watch/"

// The answer of a real Prometheus 2.42 (testdata), read as a user would
// see it in the estate.
func TestRulesOfARealAnswer(t *testing.T) {
	f := newFakeProm(t, realGroups(t))
	sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	if len(sink.Artifacts) != 3 {
		t.Fatalf("%d rules reported, want the 3 of bf-1234 (not OrdersLag): %v", len(sink.Artifacts), uris(sink))
	}
	type want struct {
		id, how, watches, state, typ string
	}
	for uri, w := range map[string]want{
		realPrefix + "alert/BF1234ReplayLag":      {"bf-1234", "expression", "true", "inactive", "alerting"},
		realPrefix + "alert/BF1234ReplayStuck":    {"bf-1234", "label", "false", "firing", "alerting"},
		realPrefix + "record/bf_1234:rows:rate5m": {"bf_1234", "name", "true", "", "recording"},
	} {
		a := sink.Artifact(uri)
		if a == nil {
			t.Errorf("%s missing; have %v", uri, uris(sink))
			continue
		}
		if a.BackfillID != w.id || a.Correlation != w.how || a.Attr(model.AttrWatchesOnly) != w.watches ||
			a.Attr(model.AttrAlertState) != w.state || a.Attr(AttrRuleType) != w.typ || a.Kind != model.KindAlert ||
			a.State != model.StateEnabled || a.Scope != "rules/rules.yml/bf-1234-watch" || a.Attr(AttrHealth) != "ok" {
			t.Errorf("%s: %+v", uri, a)
		}
	}
	lag := sink.Artifact(realPrefix + "alert/BF1234ReplayLag")
	if lag.Attr(model.AttrExpr) != `max(backfill_lag_seconds{backfill_id="bf-1234"}) > 600` || lag.Attr(AttrFor) != "5m" ||
		lag.Labels.Get("severity") != "warning" || lag.Attr(AttrLastEvaluation) != "2026-12-01T08:59:56Z" {
		t.Errorf("BF1234ReplayLag: %+v", lag)
	}
	if stuck := sink.Artifact(realPrefix + "alert/BF1234ReplayStuck"); stuck.Attr(AttrActiveSince) != "2026-12-01T08:59:44Z" {
		t.Errorf("BF1234ReplayStuck: firing since %q", stuck.Attr(AttrActiveSince))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.asks) != 1 || !strings.Contains(f.asks[0], "group_limit=200") || !strings.Contains(f.asks[0], "exclude_alerts=true") {
		t.Errorf("asked %v", f.asks)
	}
}

func uris(sink *collectors.TestSink) []string {
	var out []string
	for _, a := range sink.Artifacts {
		out = append(out, a.URI)
	}
	return out
}

func TestWatch(t *testing.T) {
	p := New()
	p.RuleFiles = []string{"x.yml"}
	if err := p.Init(env("", "")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		expr string
		ids  string
		only bool
	}{
		{`max(backfill_lag_seconds{backfill_id="bf-1"}) > 600`, "bf-1", true},
		{`rate(x{backfill_id=~"bf-1|bf-2"}[5m])`, "bf-1,bf-2", true},
		{`x{backfill_id=~"bf-.*"}`, "", false},
		{`x{backfill_id!="bf-1"}`, "", false},
		{`x{backfill_id=~"bf-1|"}`, "", false},
		{`x{backfill_id=""}`, "", false},
		{`x{backfill_id="bf-1"} / on() group_left y`, "bf-1", false},
		{`x{backfill_id="bf-1"} / y{Backfill="bf-1"}`, "bf-1", true},
		{`bf_1234_lag_seconds > 0`, "bf_1234", true},
		{`{__name__=~"bf_1_lag|bf_2_lag"}`, "bf_1,bf_2", true},
		{`{__name__=~"bf_1_lag|orders_lag"}`, "", false},
		{`vector(1) > 0`, "", false},
		{`absent(up{job="replay", backfill_id="bf-7"})`, "bf-7", true},
		{`sum_over_time(x{backfill_id="bf-7"}[1h:5m])`, "bf-7", true},
	}
	for _, tt := range tests {
		w := p.watch(tt.expr)
		if w.err != nil || strings.Join(w.ids, ",") != tt.ids || w.only != tt.only {
			t.Errorf("watch(%s) = %v only %v (err %v); want %q only %v", tt.expr, w.ids, w.only, w.err, tt.ids, tt.only)
		}
	}
	if w := p.watch(`max(`); w.err == nil || w.only {
		t.Errorf("an expression that does not parse: %+v", w)
	}
}

func TestTies(t *testing.T) {
	p := New()
	p.RuleFiles = []string{"x.yml"}
	sel := correlate.MustSelector()
	sel.AddAssets([]model.Backfill{{ID: "BF-50", AssetsToRemove: []string{"prometheus://prometheus/g/alert/Declared"}}})
	if err := p.Init(collectors.Env{Selector: sel, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		g      group
		r      rule
		uri    string
		id     string
		how    string
		others string
	}{
		{"label", group{name: "g"}, rule{name: "A", expr: "up", labels: map[string]string{"backfill-id": "BF-1"}}, "", "BF-1", "label", ""},
		{"declared asset", group{name: "g"}, rule{name: "Declared", expr: "up"}, "prometheus://prometheus/g/alert/Declared", "BF-50", "asset", ""},
		{"alert name", group{name: "g"}, rule{name: "bf_2_replay_lag", expr: "up"}, "", "bf_2", "name", ""},
		{"part of a recording rule's name", group{name: "g"}, rule{name: "job:bf_3:rate5m", expr: "up"}, "", "bf_3", "name", ""},
		{"annotation", group{name: "g"}, rule{name: "A", expr: "up", annotations: map[string]string{"backfill_id": "BF-4"}}, "", "BF-4", "annotation", ""},
		{"expression", group{name: "g"}, rule{name: "A", expr: `x{backfill_id="bf-5"}`}, "", "bf-5", "expression", ""},
		{"group name", group{name: "bf-6-watch"}, rule{name: "A", expr: "up"}, "", "bf-6", "group", ""},
		{"PrometheusRule label", group{name: "g", object: "mon/x", objectLabels: map[string]string{"backfill_id": "bf-7"}}, rule{name: "A", expr: "up"}, "", "bf-7", "object label", ""},
		{"PrometheusRule name", group{name: "g", object: "mon/bf-8-alerts"}, rule{name: "A", expr: "up"}, "", "bf-8", "object name", ""},
		{"label first, expression adds", group{name: "g"}, rule{name: "A", expr: `x{backfill_id="bf-10"}`, labels: map[string]string{"backfill_id": "bf-9"}}, "", "bf-9", "label", "bf-10"},
		{"nothing", group{name: "production"}, rule{name: "OrdersLag", expr: "max(orders_lag_seconds) > 600"}, "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, how, others := p.tie(tt.g, tt.r, tt.uri, p.watch(tt.r.expr))
			if id != tt.id || how != tt.how || strings.Join(others, ",") != tt.others {
				t.Errorf("tie = %q by %q, others %v; want %q by %q, others %q", id, how, others, tt.id, tt.how, tt.others)
			}
		})
	}
}

// Two rules of one name and type in a group (a warning and a critical
// variant) get distinct URIs; the first keeps the plain one.
func TestSameNameTwice(t *testing.T) {
	f := newFakeProm(t, []json.RawMessage{groupJSON("/etc/prometheus/bf.yml", "bf-1 watch",
		alertingJSON("BF1Lag", `x{backfill_id="bf-1"} > 1`, map[string]string{"severity": "warning"}),
		alertingJSON("BF1Lag", `x{backfill_id="bf-1"} > 10`, map[string]string{"severity": "critical"}))})
	sink, _ := collectortest.Collect(t, newCollector(t, f.URL()))
	base := "prometheus://prom/rules/%2Fetc%2Fprometheus%2Fbf.yml/bf-1%20watch/alert/BF1Lag"
	if a, b := sink.Artifact(base), sink.Artifact(base+"#2"); a == nil || b == nil || a.Labels.Get("severity") != "warning" || b.Labels.Get("severity") != "critical" {
		t.Errorf("have %v", uris(sink))
	}
	if sink.Artifacts[0].Scope != "rules/%2Fetc%2Fprometheus%2Fbf.yml/bf-1 watch" {
		t.Errorf("scope %q", sink.Artifacts[0].Scope)
	}
}

func TestPaging(t *testing.T) {
	var groups []json.RawMessage
	for _, n := range []string{"bf-1-a", "bf-2-b", "bf-3-c", "bf-4-d", "bf-5-e"} {
		groups = append(groups, groupJSON("r.yml", n, alertingJSON("A", "up", nil)))
	}
	f := newFakeProm(t, groups)
	f.paging = true
	c := newCollector(t, f.URL())
	c.GroupLimit = 2
	sink, err := collectortest.Collect(t, c)
	if err != nil || len(sink.Artifacts) != 5 {
		t.Fatalf("Collect: %v, %d rules, want 5: %v", err, len(sink.Artifacts), uris(sink))
	}
	f.mu.Lock()
	asks := f.asks
	f.mu.Unlock()
	if len(asks) != 3 || !strings.Contains(asks[1], "group_next_token=2") || !strings.Contains(asks[2], "group_next_token=4") {
		t.Errorf("asked %v, want three pages following the tokens", asks)
	}
}

// A listing that does not end is an error, never a loop.
func TestPagingBounds(t *testing.T) {
	page := func(token string) string {
		return `{"status":"success","data":{"groups":[{"name":"bf-1-g","file":"f","rules":[]}],"groupNextToken":"` + token + `"}}`
	}
	endless := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := r.URL.Query().Get("group_next_token")
		w.Write([]byte(`{"status":"success","data":{"groups":[{"name":"g` + tok + `","file":"f","rules":[]}],"groupNextToken":"` + tok + `x"}}`))
	})
	for _, tt := range []struct {
		name string
		h    http.Handler
		want string
		max  int // requests at most
	}{
		{"endless tokens", endless, "still paging after 20 pages", 20},
		{"the same token again", answer(page("t1")), "page 2 repeats items already listed", 2},
		{"only groups already read", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(page("t" + r.URL.Query().Get("group_next_token"))))
		}), "page 2 repeats items already listed", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProm(t, nil)
			counter := hostile.Count(tt.h)
			f.set("/api/v1/rules", counter)
			c := newCollector(t, f.URL())
			c.MaxPages = 20
			_, err := collectortest.Collect(t, c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Collect = %v, want %q", err, tt.want)
			}
			if counter.N() > tt.max {
				t.Errorf("%d requests, want at most %d", counter.N(), tt.max)
			}
		})
	}
}

// A group or rule the server describes without what every rule has is an
// error at that group; the other groups are reported. A listing that is
// not one fails the source.
func TestMalformedAnswers(t *testing.T) {
	good := groupJSON("r.yml", "bf-1-good", alertingJSON("A", "up", nil))
	for _, tt := range []struct {
		name  string
		bad   json.RawMessage
		scope string
		want  string
	}{
		{"rule without a name", groupJSON("r.yml", "bf-2-bad", alertingJSON("", "up", nil)), "rules/r.yml/bf-2-bad", "without a name"},
		{"rule of an unknown type", groupJSON("r.yml", "bf-2-bad", map[string]any{"type": "silence", "name": "x", "query": "up"}), "rules/r.yml/bf-2-bad", "neither alerting nor recording"},
		{"group without a name", groupJSON("r.yml", "", alertingJSON("A", "up", nil)), "rules/r.yml/-", "without a name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProm(t, []json.RawMessage{good, tt.bad})
			sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Errors) != 1 || sink.Errors[0].Scope != tt.scope || !strings.Contains(sink.Errors[0].Error, tt.want) {
				t.Errorf("errors %+v, want one at %s saying %q", sink.Errors, tt.scope, tt.want)
			}
			// The unit names the file and the group; the message does not.
			if len(sink.Errors) == 1 && (strings.Contains(sink.Errors[0].Error, "r.yml") || strings.Contains(sink.Errors[0].Error, "bf-2-bad")) {
				t.Errorf("the error repeats its unit %s: %s", tt.scope, sink.Errors[0].Error)
			}
			if n, partial := sink.Read(tt.scope, "rule groups"); tt.scope != "rules/r.yml/-" && (n != 1 || partial != 1) {
				t.Errorf("%s: %d rule groups read, %d in part; want 1, 1 in part", tt.scope, n, partial)
			}
			if sink.Artifact("prometheus://prom/rules/r.yml/bf-1-good/alert/A") == nil {
				t.Errorf("the good group was not reported: %v", uris(sink))
			}
		})
	}
	for _, body := range []string{`null`, ``, `{}`, `{"status":"success"}`, `{"status":"success","data":{"groups":null}}`,
		`{"status":"error","data":{"groups":[]}}`, `[]`, `{"status":"success","data":{"groups":[{"name":"g","rules":[{"labels":{"a":1}}]}]}}`} {
		t.Run("answer "+body, func(t *testing.T) {
			f := newFakeProm(t, nil)
			f.set("/api/v1/rules", answer(body))
			_, err := collectortest.Collect(t, newCollector(t, f.URL()))
			if err == nil || !strings.Contains(err.Error(), "list rules") {
				t.Errorf("Collect = %v, want the source failed on its rule listing", err)
			}
		})
	}
}

func TestServerErrorIsSummarised(t *testing.T) {
	f := newFakeProm(t, nil)
	f.set("/api/v1/rules", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		promError(w, http.StatusBadRequest, "bad_data", "invalid parameter \"group_limit\"")
	}))
	_, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err == nil || !strings.Contains(err.Error(), `HTTP 400: invalid parameter "group_limit"`) {
		t.Errorf("Collect = %v", err)
	}
}

func TestSampleConfig(t *testing.T) {
	inst := collectortest.DecodeSample(t, "sample.yaml")
	p := inst.Collector.(*Prometheus)
	if inst.Type != "prometheus" || p.Timeout != 30*time.Second || p.GroupLimit != 200 || p.URL == "" {
		t.Errorf("decoded %+v", p)
	}
}

// The sample's kubernetes block, switched on in place of url, decodes.
func TestSampleConfigKubernetesBlock(t *testing.T) {
	t.Setenv("KUBECONFIG", writeFiles(t, map[string]string{"kubeconfig": testKubeconfig})+"/kubeconfig")
	var lines []string
	for _, l := range strings.Split(sampleConfig, "\n") {
		switch {
		case strings.HasPrefix(l, "  url:"):
			continue
		case strings.HasPrefix(l, "  # kubernetes:"), strings.HasPrefix(l, "  #   "):
			l = "  " + strings.TrimPrefix(l, "  # ")
		}
		lines = append(lines, l)
	}
	var entries []map[string]any
	if err := yaml.Unmarshal([]byte(strings.Join(lines, "\n")), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("%v %v", err, entries)
	}
	inst, err := collectors.Decode(entries[0], collectors.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if k := inst.Collector.(*Prometheus).Kubernetes; k == nil || fmt.Sprint(k.Namespaces) != "[monitoring]" || k.PageSize != 500 {
		t.Errorf("decoded %+v", k)
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	t.Setenv("TEST_PROM_SET", "secret-value")
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "prometheus", "url": "http://prom:9090"})
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "prometheus", "rule_files": []any{"rules/*.yml"}})
	for _, tt := range []struct {
		entry map[string]any
		key   string
	}{
		{map[string]any{}, "url, rule_files or kubernetes"},
		{map[string]any{"url": "http://prom:9090", "rule_files": []any{"a.yml"}}, "url, rule_files and kubernetes: set one"},
		{map[string]any{"url": "prom:9090"}, "url"},
		{map[string]any{"url": "http://u:p@prom:9090"}, "url"},
		{map[string]any{"url": "http://prom:9090", "group_limit": 0}, "group_limit"},
		{map[string]any{"url": "http://prom:9090", "max_pages": -1}, "max_pages"},
		{map[string]any{"rule_files": []any{""}}, "rule_files[0]"},
		{map[string]any{"rule_files": []any{"rules/[a.yml"}}, "rule_files[0]"},
		{map[string]any{"rule_files": []any{"a.yml"}, "token_env": "TEST_PROM_SET"}, "only used with url"},
		{map[string]any{"url": "http://prom:9090", "group_limits": 5}, "group_limits"},
	} {
		tt.entry["type"] = "prometheus"
		_, err := collectors.Decode(tt.entry, collectors.Env{})
		if err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("%v: err %v, want one naming %s", tt.entry, err, tt.key)
		}
	}
}
