package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/config"
)

// userNamed are the sample's maps whose keys the user chooses (an owner's
// address, a rule id, a format): no env var can name a key the file does
// not have, so there the env var only overrides the file.
var userNamed = []string{"rules.params", "rules.severity", "owners", "report.outputs", "report.templates", "due.rules", "due.classifications"}

// sampleAlt are values for keys whose every other value is refused or
// needs company; any other key gets its sample value changed (a number
// plus one, a flipped boolean, text with an "x").
var sampleAlt = map[string][]string{
	"report.formats":          {"json"},
	"report.fail_on":          {"medium"},
	"rules.severity.BF002":    {"low"},
	"rules.disabled":          {"BF001"},
	"slack.period":            {"daily"},
	"history.driver":          {"postgres"},
	"metrics.pushgateway.url": {"http://pushgateway-2:9091"},
	"due.severity.info":       {"60d"},
}

// sampleCompany are env vars set for both sides of a key's comparison, so
// its other value is valid (postgres needs a DSN).
var sampleCompany = map[string]map[string]string{
	"history.driver": {"BFAUDIT_HISTORY_DSN_ENV": "BFAUDIT_TEST_UNUSED_DSN"},
}

// Issue 13.7, over the whole `bfaudit config sample`: for each of its keys
// (outside the lists of sources, waivers and user rules), the key's env
// var gives the same config as the file with that value, when the file
// lacks the key and when the file has another value.
func TestEveryKeyOfTheSampleFromEnv(t *testing.T) {
	code, sample, stderr := bfaudit(t, "config", "sample")
	if code != 0 {
		t.Fatalf("config sample: exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	plans := abs(t, "../../examples/quickstart/plans")
	parse := func() *yaml.Node {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(sample), &doc); err != nil {
			t.Fatalf("the sample is not YAML: %v", err)
		}
		// The collectors' sections need their systems' credentials; the
		// sources list is not under test (no env var reaches into a list).
		src := mapValue(doc.Content[0], "sources")
		if src == nil {
			t.Fatal("the sample has no sources")
		}
		*src = yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{
			scalar("type"), scalar("records"), scalar("plans"), {Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{scalar(plans)}},
		}}}}
		return &doc
	}
	n := 0
	load := func(t *testing.T, doc *yaml.Node) (any, error) {
		t.Helper()
		var b bytes.Buffer
		if err := yaml.NewEncoder(&b).Encode(doc); err != nil {
			t.Fatal(err)
		}
		n++
		path := filepath.Join(dir, fmt.Sprintf("c%d.yaml", n))
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := config.Load(config.NewViper(), path)
		if err != nil {
			return nil, err
		}
		// What was decoded, not what was built from it.
		return []any{c.Correlation, c.Concurrency, c.Deadline, c.Rules, c.Owners, c.Waivers, c.Report, c.GitHub, c.Slack, c.History, c.Metrics, c.Due}, nil
	}
	if _, err := load(t, parse()); err != nil {
		t.Fatalf("the sample (with a records source) does not load: %v", err)
	}
	leaves := sampleLeaves(parse().Content[0], nil)
	if len(leaves) < 25 {
		t.Fatalf("only %d keys found in the sample", len(leaves))
	}
	for _, path := range leaves {
		key := strings.Join(path, ".")
		t.Run(key, func(t *testing.T) {
			for k, v := range sampleCompany[key] {
				t.Setenv(k, v)
			}
			altNode, altEnv := sampleAltValue(key, leafAt(parse(), path))
			withAlt := parse()
			setLeaf(withAlt, path, altNode)
			want, err := load(t, withAlt)
			if err != nil {
				t.Fatalf("the sample with %s: %s does not load (add a value to sampleAlt): %v", key, altEnv, err)
			}
			env := config.EnvVar(path...)
			cases := map[string]*yaml.Node{"the file has another value": parse()}
			if !underUserNamed(key) {
				without := parse()
				removeLeaf(without, path)
				if base, err := load(t, without); err == nil && reflect.DeepEqual(base, want) {
					t.Fatalf("%s: %s is the default: the test cannot tell whether the env var took effect", key, altEnv)
				}
				cases["the file lacks the key"] = without
			}
			t.Setenv(env, altEnv)
			for name, doc := range cases {
				got, err := load(t, doc)
				if err != nil {
					t.Errorf("%s, %s=%s: %v", name, env, altEnv, err)
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s=%s did not take effect", name, env, altEnv)
				}
			}
		})
	}
}

func underUserNamed(key string) bool {
	for _, p := range userNamed {
		if strings.HasPrefix(key, p+".") {
			return true
		}
	}
	return false
}

// sampleLeaves lists the paths of the values an env var can set: scalars
// and lists of scalars, not the lists of entries (sources, waivers,
// rules.custom) nor empty maps.
func sampleLeaves(m *yaml.Node, prefix []string) [][]string {
	var out [][]string
	for i := 0; i+1 < len(m.Content); i += 2 {
		path := append(append([]string(nil), prefix...), m.Content[i].Value)
		v := m.Content[i+1]
		switch v.Kind {
		case yaml.ScalarNode:
			out = append(out, path)
		case yaml.MappingNode:
			out = append(out, sampleLeaves(v, path)...)
		case yaml.SequenceNode:
			if len(v.Content) == 0 || v.Content[0].Kind == yaml.ScalarNode {
				out = append(out, path)
			}
		}
	}
	return out
}

var amount = regexp.MustCompile(`^(\d+)([a-z]+)$`)

// sampleAltValue is another value for the key: as a YAML node, and as its
// env var spells it.
func sampleAltValue(key string, n *yaml.Node) (*yaml.Node, string) {
	if vals, ok := sampleAlt[key]; ok {
		if n.Kind == yaml.SequenceNode {
			return scalarList(vals), strings.Join(vals, ",")
		}
		return scalar(vals[0]), vals[0]
	}
	if n.Kind == yaml.SequenceNode {
		vals := []string{n.Content[0].Value + "x"}
		return scalarList(vals), vals[0]
	}
	v := n.Value
	switch {
	case n.Tag == "!!bool":
		b, _ := strconv.ParseBool(v)
		v = strconv.FormatBool(!b)
	case n.Tag == "!!int":
		i, _ := strconv.Atoi(v)
		v = strconv.Itoa(i + 1)
	case amount.MatchString(v):
		m := amount.FindStringSubmatch(v)
		i, _ := strconv.Atoi(m[1])
		v = strconv.Itoa(i+1) + m[2]
	default:
		v += "x"
	}
	node := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	return node, v
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

func scalarList(vals []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range vals {
		n.Content = append(n.Content, scalar(v))
	}
	return n
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func leafAt(doc *yaml.Node, path []string) *yaml.Node {
	n := doc.Content[0]
	for _, p := range path {
		n = mapValue(n, p)
	}
	return n
}

func setLeaf(doc *yaml.Node, path []string, v *yaml.Node) {
	*leafAt(doc, path) = *v
}

func removeLeaf(doc *yaml.Node, path []string) {
	m := leafAt(doc, path[:len(path)-1])
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == path[len(path)-1] {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}
