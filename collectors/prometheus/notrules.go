package prometheus

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/internal/decodeerr"
)

// A rules folder holds more than rules: promtool unit tests beside the
// files they test, the Prometheus configuration that loads them, scrape
// target lists, Kubernetes objects beside a PrometheusRule. Such a file
// holds no rules and is skipped with a note; a file that looks like a rule
// file with its groups: key mistyped is an error instead (see parseFile).

// mappingKeys are the keys of a YAML mapping.
func mappingKeys(m *yaml.Node) map[string]bool {
	keys := make(map[string]bool, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		keys[m.Content[i].Value] = true
	}
	return keys
}

// ruleKeys are keys only a rule group or a rule has.
var ruleKeys = map[string]bool{"rules": true, "alert": true, "record": true, "expr": true}

// mistypedRuleFile reports whether a mapping without groups: looks like a
// rule file all the same: a key that is a misspelling of groups (group,
// Groups, grups), a top-level rules: key, a list of rule groups under
// another key, or a PrometheusRule's spec: without the object around it.
func mistypedRuleFile(m *yaml.Node) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(m.Content[i].Value))
		if ruleKeys[k] || decodeerr.Distance(k, "groups") <= 2 || k == "rulegroups" {
			return true
		}
		v := m.Content[i+1]
		if v.Kind == yaml.SequenceNode && holdsRuleGroups(v) {
			return true
		}
		if k == "spec" && v.Kind == yaml.MappingNode && mappingKeys(v)["groups"] {
			return true
		}
	}
	return false
}

// holdsRuleGroups reports whether a YAML list holds a mapping with a key
// only rule groups and rules have (rules, alert, record, expr).
func holdsRuleGroups(seq *yaml.Node) bool {
	for _, it := range seq.Content {
		if it.Kind != yaml.MappingNode {
			continue
		}
		for k := range mappingKeys(it) {
			if ruleKeys[k] {
				return true
			}
		}
	}
	return false
}

// notRules says what kind of file a YAML mapping without groups: is, for
// the note that says such files were skipped (plural: files of one kind
// share a note).
func notRules(m *yaml.Node) string {
	keys := mappingKeys(m)
	has := func(ks ...string) bool {
		for _, k := range ks {
			if keys[k] {
				return true
			}
		}
		return false
	}
	switch {
	case has("tests"):
		return "promtool unit test files (tests:)"
	case has("scrape_configs", "scrape_config_files", "global", "rule_files", "alerting", "remote_write", "remote_read", "storage", "otlp", "tracing"):
		return "Prometheus configurations"
	case has("route", "receivers", "inhibit_rules"):
		return "Alertmanager configurations"
	case has("tls_server_config", "http_server_config", "basic_auth_users"):
		return "web configurations (TLS, basic auth)"
	}
	return "other YAML without a groups: key"
}

// skippedNotes words the files that held no rules, one note per kind of
// file: "skipped 3 files that hold no rules, promtool unit test files
// (tests:): rules/a_test.yml, rules/b_test.yml, rules/c_test.yml", the
// first ten named.
func skippedNotes(skipped map[string][]string) []string {
	kinds := make([]string, 0, len(skipped))
	for k := range skipped {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		units := skipped[k]
		files := "files that hold"
		if len(units) == 1 {
			files = "file that holds"
		}
		out = append(out, fmt.Sprintf("skipped %d %s no rules, %s: %s", len(units), files, k, listSome(units, 10)))
	}
	return out
}

// listSome joins the first n of names, saying how many more there were.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}
