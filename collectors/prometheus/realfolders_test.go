package prometheus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// The shapes of the files that sit beside rule files in real rules folders
// (Prometheus's own cmd/promtool/testdata, kube-prometheus's manifests/):
// each holds no rules. The corpus (testdata/realworld/prometheus-*) reads
// the real ones.
var notRuleFiles = map[string]string{
	// promtool test rules: a unit test beside the file it tests
	"rules/bf_test.yml": "rule_files:\n  - bf.yml\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n      - series: 'up{job=\"x\"}'\n        values: '0 0 0'\n    alert_rule_test:\n      - eval_time: 2m\n        alertname: InstanceDown\n",
	// the Prometheus configuration that loads them
	"rules/prometheus.yml": "global:\n  scrape_interval: 15s\nrule_files:\n  - \"*.yml\"\nscrape_configs:\n  - job_name: prometheus\n    static_configs:\n      - targets: ['localhost:9090']\n",
	// a file_sd target list
	"rules/targets.yml": "- targets: ['localhost:9100']\n  labels:\n    job: node\n",
	// Kubernetes objects without a PrometheusRule
	"rules/rbac.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: prometheus}\nrules:\n  - apiGroups: [\"\"]\n    resources: [nodes]\n    verbs: [get, list, watch]\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: prometheus}\n",
	// web.config.file
	"rules/web.yml": "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n",
	// an Alertmanager configuration
	"rules/alertmanager.yml": "route:\n  receiver: default\nreceivers:\n  - name: default\n",
}

// Files that hold no rules are skipped with a note saying what they are,
// never an error: a rules folder of a real project has them. Before, each
// was an error and the source degraded on every run.
func TestFilesThatHoldNoRulesAreSkipped(t *testing.T) {
	files := map[string]string{"rules/bf.yml": bfRules}
	for k, v := range notRuleFiles {
		files[k] = v
	}
	dir := writeFiles(t, files)
	p := fileCollector(t, dir, "rules/*.yml", "rules/*.yaml")
	sink, err := collectortest.Collect(t, p)
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	if len(sink.Artifacts) != 2 {
		t.Errorf("the rule file's two backfill rules: %v", uris(sink))
	}
	if n, _ := sink.Read("", readSkipped); n != len(notRuleFiles) {
		t.Errorf("%d files skipped, want %d", n, len(notRuleFiles))
	}
	if n, _ := sink.Read("", readRuleFiles); n != 1 {
		t.Errorf("%d rule files read, want 1", n)
	}
	notes := strings.Join(p.Notes(), "\n")
	for _, want := range []string{
		"skipped 1 file that holds no rules, promtool unit test files (tests:): rules/bf_test.yml",
		"Prometheus configurations: rules/prometheus.yml",
		"YAML lists (not rule groups): rules/targets.yml",
		"Kubernetes objects without a PrometheusRule: rules/rbac.yaml",
		"web configurations (TLS, basic auth): rules/web.yml",
		"Alertmanager configurations: rules/alertmanager.yml",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q, want %q", notes, want)
		}
	}
	if strings.Contains(notes, "rules/bf.yml") {
		t.Errorf("the rule file is said to be skipped: %q", notes)
	}
}

// Many files of one kind share one note, which names the first ten.
func TestSkippedFilesShareANote(t *testing.T) {
	files := map[string]string{"rules/bf.yml": bfRules}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		files["rules/"+n+"_test.yml"] = notRuleFiles["rules/bf_test.yml"]
	}
	dir := writeFiles(t, files)
	p := fileCollector(t, dir, "rules/*.yml")
	if _, err := collectortest.Collect(t, p); err != nil {
		t.Fatal(err)
	}
	if len(p.Notes()) != 1 || !strings.Contains(p.Notes()[0], "skipped 12 files that hold no rules, promtool unit test files (tests:): rules/a_test.yml, ") ||
		!strings.HasSuffix(p.Notes()[0], "rules/j_test.yml and 2 more") {
		t.Errorf("notes %q", p.Notes())
	}
}

// A jsonnet mixin without rules compiles to `null` or `{}` (monitoring
// mixins write 110 such files): Prometheus loads them as rule files with
// no group, and so does bfaudit. A zero-byte file stays an error: a file
// cut short while it was written must not read as every rule deleted.
func TestEmptyRuleFilesAsMixinsWriteThem(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"mixins/caddy/alerts.yaml":     "null\n",
		"mixins/aerospike/rules.yaml":  "{}\n",
		"mixins/apache/rules.yaml":     "groups: []\n",
		"mixins/node/alerts.yaml":      "~\n",
		"mixins/truncated/alerts.yaml": "",
	})
	sink, err := collectortest.Collect(t, fileCollector(t, dir, "mixins/*/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "mixins/truncated/alerts.yaml" || !strings.Contains(sink.Errors[0].Error, "empty") {
		t.Errorf("errors %+v, want one, at the zero-byte file", sink.Errors)
	}
	if n, _ := sink.Read("", readRuleFiles); n != 4 {
		t.Errorf("%d rule files read, want 4", n)
	}
	if n, _ := sink.Read("mixins/caddy/alerts.yaml", readGroups); n != 0 || len(sink.Reads) == 0 {
		t.Errorf("%d groups in a null rule file; reads %+v", n, sink.Reads)
	}
}

// rule_files may name a folder: every .yml and .yaml under it is read, at
// any depth, names starting with "." left out (a .git folder, a linter's
// .yamllint.yaml: read, it was a skipped file on every run); each file is its own unit, named
// under the folder as the config writes it.
func TestRuleFilesFromAFolder(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"rules/team-a/bf.yml":           bfRules,
		"rules/team-b/k8s.yaml":         prometheusRules,
		"rules/team-b/bf_test.yml":      notRuleFiles["rules/bf_test.yml"],
		"rules/README.md":               "# rules\nkey: value: not yaml\n",
		"rules/.git/config.yml":         "groups: [",
		"rules/.yamllint.yaml":          "extends: default\nrules:\n  line-length: disable\n",
		"rules/team-c/broken.yml":       "groups:\n  - name: [\n",
		"rules/team-c/deeper/rules.YML": "groups: []\n",
	})
	sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "rules/team-c/broken.yml" {
		t.Errorf("errors %+v, want one at rules/team-c/broken.yml", sink.Errors)
	}
	if n, _ := sink.Read("", readRuleFiles); n != 3 {
		t.Errorf("%d rule files read, want 3 (bf.yml, k8s.yaml, rules.YML): %+v", n, sink.Reads)
	}
	if n, _ := sink.Read("rules/team-b/bf_test.yml", readSkipped); n != 1 {
		t.Errorf("the promtool test file: %+v", sink.Reads)
	}
	for _, r := range sink.Reads {
		if strings.Contains(r.Scope, ".yamllint") {
			t.Errorf("the linter's file was read: %+v", r)
		}
	}
	if a := sink.Artifact("prometheus://rules-repo/files/rules/team-a/bf.yml/bf-1234-watch/alert/BF1234ReplayLag"); a == nil || a.Scope != "rules/team-a/bf.yml" {
		t.Errorf("the folder's rule file: %v", uris(sink))
	}

	empty := writeFiles(t, map[string]string{"rules/.keep": ""})
	sink, err = collectortest.Collect(t, fileCollector(t, empty, "rules"))
	if err != nil || len(sink.Errors) > 0 {
		t.Errorf("an empty folder is an answer (no rules there): %v %+v", err, sink.Errors)
	}
}

// A glob's wildcards pass over hidden names as a shell's do: rules/*.yaml
// does not read the linter's rules/.yamllint.yaml. Before, it did, and the
// source was degraded on every run ("not a rule file").
func TestAGlobPassesOverHiddenFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"rules/bf.yaml":        bfRules,
		"rules/.yamllint.yaml": "extends: default\nrules:\n  line-length: disable\n",
	})
	sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := sink.Read("", readRuleFiles); n != 1 || len(sink.Errors) != 0 {
		t.Errorf("read %d rule files, errors %+v; want 1 and none", n, sink.Errors)
	}
	for _, r := range sink.Reads {
		if strings.Contains(r.Scope, ".yamllint") {
			t.Errorf("the linter's file was read: %+v", r)
		}
	}
}

// A configured folder that is a link to a folder (git-sync's swapped
// link, a checkout kept elsewhere) is read like the folder. Before, the
// walk stopped at the link and the source said "ok, read 0 rule files".
func TestALinkedRuleFolderIsRead(t *testing.T) {
	dir := writeFiles(t, map[string]string{"checkout/rules/bf.yml": bfRules})
	if err := os.Symlink(filepath.Join(dir, "checkout", "rules"), filepath.Join(dir, "rules")); err != nil {
		t.Fatal(err)
	}
	sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := sink.Read("", readRuleFiles); n != 1 || sink.Artifact("prometheus://rules-repo/files/rules/bf.yml/bf-1234-watch/alert/BF1234ReplayLag") == nil {
		t.Errorf("read %d rule files through the link, want 1 with its rule: %v", n, uris(sink))
	}
}

// Every unit says what it read: files (rule files, PrometheusRule objects,
// groups, alerting and recording rules), the server's groups, a cluster's
// objects. Before, nothing said 300 rule files were read and none was tied.
func TestReadsSayWhatEachUnitRead(t *testing.T) {
	t.Run("files", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"rules/bf.yml": bfRules, "k8s/rules.yaml": prometheusRules, "k8s/list.yaml": prometheusRuleList})
		sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/*.yml", "k8s/*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []struct {
			scope, what string
			n           int
		}{
			{"rules/bf.yml", readRuleFiles, 1}, {"rules/bf.yml", readGroups, 2}, {"rules/bf.yml", readAlerting, 2}, {"rules/bf.yml", readRecording, 1},
			{"k8s/rules.yaml", readObjects, 1}, {"k8s/rules.yaml", readGroups, 1}, {"k8s/rules.yaml", readAlerting, 1},
			{"k8s/list.yaml", readObjects, 1}, {"k8s/list.yaml", readRecording, 1},
			{"", readRuleFiles, 3}, {"", readGroups, 4}, {"", readAlerting, 3}, {"", readRecording, 2},
		} {
			if n, partial := sink.Read(w.scope, w.what); n != w.n || partial != 0 {
				t.Errorf("%s: %d %s (%d in part), want %d", orDash(w.scope), n, w.what, partial, w.n)
			}
		}
	})
	t.Run("server", func(t *testing.T) {
		f := newFakeProm(t, realGroups(t))
		sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := sink.Read("rules/rules.yml/production", readGroups); n != 1 {
			t.Errorf("the production group, tied to nothing, was read too: %+v", sink.Reads)
		}
		if n, _ := sink.Read("", readAlerting); n != 3 {
			t.Errorf("%d alerting rules, want 3: %+v", n, sink.Reads)
		}
		if n, _ := sink.Read("", readRecording); n != 1 {
			t.Errorf("%d recording rules, want 1: %+v", n, sink.Reads)
		}
	})
	t.Run("cluster", func(t *testing.T) {
		empty := "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: emptied, namespace: monitoring}\nspec: {}\n"
		dyn, disc := fakeCluster(true, objects(t, prometheusRules, otherNamespaceRule, empty)...)
		sink, err := collectortest.Collect(t, clusterCollector(t, dyn, disc))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := sink.Read("", readObjects); n != 3 {
			t.Errorf("%d PrometheusRule objects, want 3: %+v", n, sink.Reads)
		}
		if n, _ := sink.Read("monitoring/bf-2001-alerts", readGroups); n != 1 {
			t.Errorf("monitoring/bf-2001-alerts: %+v", sink.Reads)
		}
	})
}

// When no file can be read the source fails with an error that names each
// file once (its own unit's error does not name it at all). A lone file's
// error is the source's own, and the file is named by the unit it is
// recorded at.
func TestNoFileReadNamesTheFileOnce(t *testing.T) {
	dir := writeFiles(t, map[string]string{"rules/broken.yml": "groups:\n  - name: [\n", "rules/more/x.yml": "groups:\n  - name: [\n"})
	_, err := collectortest.Collect(t, fileCollector(t, dir, "rules/*.yml", "rules/more/x.yml"))
	if err == nil || strings.Count(err.Error(), "broken.yml") != 1 || strings.Count(err.Error(), "more/x.yml") != 1 {
		t.Errorf("Collect() = %v, want the source failed, naming rules/broken.yml and rules/more/x.yml once", err)
	}
	sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/*.yml"))
	if err == nil || strings.Contains(err.Error(), "broken.yml") || strings.Count(err.Error(), "prometheus source") != 1 ||
		len(sink.Errors) != 1 || sink.Errors[0].Scope != "rules/broken.yml" || sink.Errors[0].Error != err.Error() {
		t.Errorf("Collect() = %v, errors %+v: want the source failed with the error of rules/broken.yml, recorded at it", err, sink.Errors)
	}
}

// Separator-less ids need three digits: BF1234_replay_lag is BF-1234's (the
// example of docs/collectors/prometheus.md), a bfloat16 alert is nobody's.
func TestNameTiesWithoutASeparator(t *testing.T) {
	dir := writeFiles(t, map[string]string{"rules/ml.yml": `groups:
  - name: training
    rules:
      - alert: BF1234_replay_lag
        expr: max(replay_lag_seconds) > 600
      - alert: BF16_throughput_low
        expr: sum(rate(tokens_total{dtype="bf16"}[5m])) < 1000
      - record: bf16:tokens:rate5m
        expr: sum(rate(tokens_total{dtype="bf16"}[5m]))
`})
	sink, err := collectortest.Collect(t, fileCollector(t, dir, "rules/ml.yml"))
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	if len(sink.Artifacts) != 1 {
		t.Fatalf("rules tied: %v, want only BF1234_replay_lag", uris(sink))
	}
	if a := sink.Artifacts[0]; a.Name != "BF1234_replay_lag" || !model.SameID(a.BackfillID, "BF-1234") || a.Correlation != "name" {
		t.Errorf("%s tied to %q by %s, want BF-1234 by name", a.Name, a.BackfillID, a.Correlation)
	}
}

// rulefmt's positions are said in words, once each; it writes 0:0 when it
// knows none.
func TestPositioned(t *testing.T) {
	for in, want := range map[string]string{
		`5:15: group "g", rule 1, "A": could not parse expression: 1:5: parse error`:              `line 5, column 15: group "g", rule 1, "A": could not parse expression: 1:5: parse error`,
		`4:17: 5:16: group "yolo", rule 1, "Hello": only one of 'record' and 'alert' must be set`: `line 4, column 17 and line 5, column 16: group "yolo", rule 1, "Hello": only one of 'record' and 'alert' must be set`,
		`0:0: 0:0: group "yolo", rule 1, "": one of 'record' or 'alert' must be set`:              `group "yolo", rule 1, "": one of 'record' or 'alert' must be set`,
		`yaml: unmarshal errors`: `yaml: unmarshal errors`,
	} {
		if got := positioned(in); got != want {
			t.Errorf("positioned(%q) = %q, want %q", in, got, want)
		}
	}
}

// helm template and kustomize write streams that start with an empty
// document ("---" and a "# Source:" comment): the PrometheusRule after it
// is read, not taken for an empty rule file. Rule groups after an empty
// first document are an error: Prometheus reads only the first.
func TestStreamsThatStartEmpty(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"rendered/rules.yaml": "---\n# Source: kube-prometheus-stack/templates/prometheus/rules/bf.yaml\n---\n" + strings.TrimPrefix(prometheusRules, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: unrelated}\ndata: {a: b}\n---\n"),
		"rendered/late.yml":   "---\n---\n" + bfRules,
		"rendered/blank.yml":  "---\n---\n",
	})
	sink, err := collectortest.Collect(t, fileCollector(t, dir, "rendered/"))
	if err != nil {
		t.Fatal(err)
	}
	if a := sink.Artifact("prometheus://rules-repo/files/rendered/rules.yaml/monitoring/bf-2001-alerts/replay/alert/ReplayStuck"); a == nil {
		t.Errorf("the PrometheusRule after an empty document: %v", uris(sink))
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "rendered/late.yml" || !strings.Contains(sink.Errors[0].Error, "document 2") {
		t.Errorf("errors %+v, want one at rendered/late.yml naming document 2", sink.Errors)
	}
	if n, _ := sink.Read("rendered/blank.yml", readRuleFiles); n != 1 {
		t.Errorf("a stream of empty documents is a rule file with no group: %+v", sink.Reads)
	}
}
