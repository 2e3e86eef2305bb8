package prometheus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

const bfRules = `groups:
  - name: bf-1234-watch
    labels: {team: data}
    rules:
      - alert: BF1234ReplayLag
        expr: max(backfill_lag_seconds{backfill_id="bf-1234"}) > 600
        for: 10m
        labels: {severity: warning}
      - record: bf_1234:rows:rate5m
        expr: sum(rate(backfill_rows_total{backfill_id="bf-1234"}[5m]))
  - name: production
    rules:
      - alert: OrdersLag
        expr: max(orders_lag_seconds) > 600
`

const prometheusRules = `apiVersion: v1
kind: ConfigMap
metadata: {name: unrelated}
data: {a: b}
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: bf-2001-alerts
  namespace: monitoring
  labels: {release: kube-prometheus}
spec:
  groups:
    - name: replay
      partial_response_strategy: warn
      rules:
        - alert: ReplayStuck
          expr: max(replay_progress{job="replays"}) == 0
`

const prometheusRuleList = `apiVersion: v1
kind: List
items:
  - apiVersion: monitoring.coreos.com/v1
    kind: PrometheusRule
    metadata: {name: lag, namespace: monitoring, labels: {backfill-id: BF-2002}}
    spec:
      groups:
        - name: lag
          rules:
            - record: replay:lag:max
              expr: max(replay_lag_seconds)
`

// writeFiles writes name -> content under a temporary directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func fileCollector(t *testing.T, dir string, patterns ...string) *Prometheus {
	t.Helper()
	p := New()
	p.RuleFiles = patterns
	if err := p.Init(env("rules-repo", dir)); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRuleFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{"rules/bf.yml": bfRules, "k8s/rules.yaml": prometheusRules, "k8s/list.yaml": prometheusRuleList})
	sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/*.yml", "k8s/*.yaml"))
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	checkTies(t, sink, map[string]tie{
		"prometheus://rules-repo/files/rules/bf.yml/bf-1234-watch/alert/BF1234ReplayLag":                  {"bf-1234", "expression", "rules/bf.yml"},
		"prometheus://rules-repo/files/rules/bf.yml/bf-1234-watch/record/bf_1234:rows:rate5m":             {"bf_1234", "name", "rules/bf.yml"},
		"prometheus://rules-repo/files/k8s/rules.yaml/monitoring/bf-2001-alerts/replay/alert/ReplayStuck": {"bf-2001", "object name", "k8s/rules.yaml"},
		"prometheus://rules-repo/files/k8s/list.yaml/monitoring/lag/lag/record/replay:lag:max":            {"BF-2002", "object label", "k8s/list.yaml"},
	})
	lag := sink.Artifact("prometheus://rules-repo/files/rules/bf.yml/bf-1234-watch/alert/BF1234ReplayLag")
	if lag != nil && (lag.Labels.Get("team") != "data" || lag.Labels.Get("severity") != "warning" || lag.Attr(AttrFor) != "10m" ||
		lag.Attr(model.AttrWatchesOnly) != "true" || lag.Attr(model.AttrAlertState) != "" || lag.Attr(AttrFile) != "rules/bf.yml") {
		t.Errorf("BF1234ReplayLag from a file: %+v", lag)
	}
	if st := sink.Artifact("prometheus://rules-repo/files/k8s/rules.yaml/monitoring/bf-2001-alerts/replay/alert/ReplayStuck"); st != nil && st.Attr(AttrObject) != "monitoring/bf-2001-alerts" {
		t.Errorf("ReplayStuck: %+v", st)
	}
}

// Each file is its own unit: one that cannot be read or parsed is an error
// there, naming the file, and the others are read.
func TestBrokenFiles(t *testing.T) {
	tests := []struct {
		name, body string
		want       string
	}{
		{"YAML error", "groups:\n  - name: [", "yaml"},
		{"expression error, with its line", "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: max(\n", "line 5, column 15"},
		{"unknown key", "groups:\n  - name: g\n    rulez: []\n", "rulez"},
		{"a typo for groups", "group:\n  - name: g\n", "no groups: key"},
		{"empty file", "\n\n", "empty"},
		{"comments only", "# no rules yet\n", "no groups: key"},
		{"rules without groups: above them", "rules:\n  - alert: A\n    expr: up == 0\n", "no groups: key"},
		{"rule groups as a bare list", "- name: g\n  rules:\n    - alert: A\n      expr: up == 0\n", "cannot unmarshal"},
		{"rule groups under another key", "rule_groups:\n  - name: g\n    rules: []\n", "no groups: key"},
		{"a PrometheusRule's spec without the object", "spec:\n  groups:\n    - name: g\n      rules: []\n", "no groups: key"},
		{"a PrometheusRule without a name", "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nspec: {groups: []}\n", "metadata.name"},
		{"a PrometheusRule with a bad rule", "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: x}\nspec:\n  groups:\n    - name: g\n      rules:\n        - alert: A\n          expr: 'sum('\n", "PrometheusRule x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"rules/bf.yml": bfRules, "rules/broken.yml": tt.body})
			sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/*.yml"))
			if err != nil {
				t.Fatalf("Collect failed the source: %v", err)
			}
			// The unit names the file; the message does not repeat it.
			if len(sink.Errors) != 1 || sink.Errors[0].Scope != "rules/broken.yml" || !strings.Contains(sink.Errors[0].Error, tt.want) ||
				strings.Contains(sink.Errors[0].Error, "broken.yml") || strings.Contains(sink.Errors[0].Error, dir) {
				t.Errorf("errors %+v, want one at rules/broken.yml saying %q (and naming no path)", sink.Errors, tt.want)
			}
			if len(sink.Artifacts) != 2 {
				t.Errorf("the good file's rules: %v", uris(sink))
			}
		})
	}
}

func TestFileUnits(t *testing.T) {
	dir := writeFiles(t, map[string]string{"rules/bf.yml": bfRules, "empty/.keep": ""})
	t.Run("a literal file that is missing", func(t *testing.T) {
		sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/bf.yml", "rules/gone.yml"))
		if err != nil || len(sink.Errors) != 1 || sink.Errors[0].Scope != "rules/gone.yml" || len(sink.Artifacts) != 2 {
			t.Errorf("%v %+v %v", err, sink.Errors, uris(sink))
		}
	})
	t.Run("a glob whose directory is missing", func(t *testing.T) {
		sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/bf.yml", "rulez/*.yml"))
		if err != nil || len(sink.Errors) != 1 || sink.Errors[0].Scope != "rulez" || !strings.Contains(sink.Errors[0].Error, "does not exist") {
			t.Errorf("%v %+v", err, sink.Errors)
		}
	})
	t.Run("a glob matching nothing in a directory that exists", func(t *testing.T) {
		sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/bf.yml", "empty/*.yml"))
		if err != nil || len(sink.Errors) != 0 {
			t.Errorf("an empty directory is an answer (no rules there): %v %+v", err, sink.Errors)
		}
	})
	t.Run("a file listed twice is read once", func(t *testing.T) {
		sink, _ := collectortest.Collect(t, fileCollector(t, dir, "rules/bf.yml", "rules/*.yml", "./rules/bf.yml"))
		if len(sink.Artifacts) != 2 {
			t.Errorf("%v", uris(sink))
		}
	})
	t.Run("nothing could be read", func(t *testing.T) {
		_, err := collectortest.Collect(t, fileCollector(t, dir, "rules/gone.yml", "nowhere/*.yml"))
		if err == nil {
			t.Error("every file failed, yet the source answered")
		}
	})
	t.Run("absolute paths", func(t *testing.T) {
		abs := filepath.Join(dir, "rules", "bf.yml")
		sink, err := collectortest.Collect(t, fileCollector(t, "/elsewhere", abs))
		if err != nil || len(sink.Artifacts) != 2 || sink.Artifacts[0].Scope != filepath.ToSlash(abs) {
			t.Errorf("%v %v", err, uris(sink))
		}
	})
	t.Run("a rule that does not parse is named file:line", func(t *testing.T) {
		bad := writeFiles(t, map[string]string{"rules/bad.yml": "groups:\n  - name: g\n    rules:\n      - alert: X\n        expr: up ==\n"})
		sink, _ := collectortest.Collect(t, fileCollector(t, bad, "rules/bad.yml"))
		if len(sink.Errors) != 1 || sink.Errors[0].Scope != "rules/bad.yml" || !strings.Contains(sink.Errors[0].Error, "line 5, column 15: group \"g\", rule 1") {
			t.Errorf("want an error at rules/bad.yml saying line 5, column 15: group \"g\", rule 1: %+v", sink.Errors)
		}
	})
	t.Run("a named pipe is not read", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "rules.yml")
		if err := mkfifo(fifo); err != nil {
			t.Skip(err)
		}
		sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/bf.yml", fifo))
		if err != nil || len(sink.Errors) != 1 || len(sink.Artifacts) != 2 {
			t.Errorf("%v %+v", err, sink.Errors)
		}
	})
}

// tie is how a rule is tied to its backfill, and where it lies.
type tie struct{ id, how, scope string }

// checkTies checks that the sink holds exactly these rules, each tied
// and scoped as given.
func checkTies(t *testing.T, sink *collectors.TestSink, want map[string]tie) {
	t.Helper()
	if len(sink.Artifacts) != len(want) {
		t.Errorf("%d rules, want %d: %v", len(sink.Artifacts), len(want), uris(sink))
	}
	for uri, w := range want {
		a := sink.Artifact(uri)
		if a == nil {
			t.Errorf("%s missing; have %v", uri, uris(sink))
			continue
		}
		if a.BackfillID != w.id || a.Correlation != w.how || a.Scope != w.scope {
			t.Errorf("%s: %s by %s at %s, want %s by %s at %s", uri, a.BackfillID, a.Correlation, a.Scope, w.id, w.how, w.scope)
		}
	}
}
