package flagd

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// write lays files out under a fresh config directory.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func errorsOf(sink *collectors.TestSink) []string {
	var out []string
	for _, e := range sink.Errors {
		out = append(out, e.Scope+" | "+e.Error)
	}
	sort.Strings(out)
	return out
}

// An ENABLED flag whose variants are strings or objects serves its
// default variant to everyone: it is on, whatever that variant is called.
// A string that says off, a boolean false, DISABLED or no default variant
// is off.
func TestEnabledStringAndObjectFlagsAreOn(t *testing.T) {
	dir := write(t, map[string]string{"flags/shop.flagd.json": `{
  "metadata": {"backfill_id": "BF-5100"},
  "flags": {
    "header-color": {"state": "ENABLED", "variants": {"red": "#FF0000", "blue": "#0000FF"}, "defaultVariant": "red"},
    "fib-algo": {"state": "ENABLED", "variants": {"recursive": "recursive", "memo": "memo"}, "defaultVariant": "recursive"},
    "checkout-config": {"state": "ENABLED", "variants": {"v1": {"steps": 3}, "v2": {"steps": 2}}, "defaultVariant": "v1"},
    "mode-off": {"state": "ENABLED", "variants": {"a": "on", "b": "off"}, "defaultVariant": "b"},
    "bool-off": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"},
    "disabled-color": {"state": "DISABLED", "variants": {"red": "#FF0000"}, "defaultVariant": "red"},
    "code-default": {"state": "ENABLED", "variants": {"red": "#FF0000"}}
  }
}`})
	sink := collect(t, dir, "flags/shop.flagd.json")
	if len(sink.Errors) > 0 {
		t.Fatalf("errors: %v", errorsOf(sink))
	}
	got := byName(sink.Artifacts)
	for name, want := range map[string]model.State{
		"header-color": model.StateEnabled, "fib-algo": model.StateEnabled, "checkout-config": model.StateEnabled,
		"mode-off": model.StateDisabled, "bool-off": model.StateDisabled, "disabled-color": model.StateDisabled,
		"code-default": model.StateDisabled,
	} {
		if got[name].State != want {
			t.Errorf("%s: state %q, want %q", name, got[name].State, want)
		}
	}
}

// flagd's list form (flagd.json: flags as a list, each with its key) is
// read like the map; a list entry without a key, or a key written twice,
// is an error naming its place, and the other flags are kept.
func TestArrayFormIsRead(t *testing.T) {
	dir := write(t, map[string]string{"flags/list.flagd.yaml": `flags:
  - key: bf-5200-replay
    state: ENABLED
    variants: {"on": true, "off": false}
    defaultVariant: "on"
  - state: ENABLED
    variants: {"on": true}
  - key: bf-5200-dup
    state: ENABLED
    variants: {"on": true}
  - key: bf-5200-dup
    state: DISABLED
    variants: {"on": true}
  - key: bf-5200-limit
    state: ENABLED
    variants: {small: 1, large: 5}
    defaultVariant: large
`})
	sink := collect(t, dir, "flags/list.flagd.yaml")
	want := []string{
		"flags/list.flagd.yaml | flagd: flags/list.flagd.yaml:11: flags[3] (bf-5200-dup): defined twice",
		"flags/list.flagd.yaml | flagd: flags/list.flagd.yaml:6: flags[1].key: missing; each flag of the list names itself with key",
	}
	if g := errorsOf(sink); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	got := byName(sink.Artifacts)
	limit := got["bf-5200-limit"]
	if len(got) != 2 || got["bf-5200-replay"].State != model.StateEnabled || limit.Attr(model.AttrPosition) != "large" {
		t.Errorf("artifacts %+v", got)
	}
	if a := got["bf-5200-replay"]; a.URI != "flagd://flags/flags/list.flagd.yaml#bf-5200-replay" || a.Attr(AttrShape) != "array" {
		t.Errorf("uri %s shape %q", a.URI, a.Attr(AttrShape))
	}
	if n, _ := sink.Read("flags/list.flagd.yaml", "flags"); n != 2 {
		t.Errorf("read %d flags, want 2", n)
	}
}

const operatorManifests = `# the Operator's end-to-end sample, with a backfill label
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: core.openfeature.dev/v1beta1
kind: FeatureFlag
metadata:
  name: replay-flags
  namespace: shop
  labels:
    backfill_id: BF-5300
spec:
  flagSpec:
    flags:
      "simple-flag":
        state: "ENABLED"
        variants:
          "on": true
          "off": false
        defaultVariant: "on"
      "hex-color":
        state: ENABLED
        variants: {red: "#CC0000", green: "#00CC00"}
        defaultVariant: green
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop-web
  namespace: shop
spec:
  replicas: 1
---
apiVersion: core.openfeature.dev/v1beta1
kind: FeatureFlagSource
metadata:
  name: shop
spec:
  sources:
  - source: shop/replay-flags
    provider: kubernetes
`

const v1alpha1Manifest = `apiVersion: core.openfeature.dev/v1alpha1
kind: FeatureFlagConfiguration
metadata:
  name: end-to-end
spec:
  featureFlagSpec: |
    {
      "flags": {
        "bf-5301-welcome": {
          "state": "ENABLED",
          "variants": {"on": true, "off": false},
          "defaultVariant": "on"
        },
        "bf-5301-broken": {
          "state": "enabled",
          "variants": {"on": true}
        }
      }
    }
`

const v1alpha2List = `apiVersion: v1
kind: List
items:
- apiVersion: core.openfeature.dev/v1alpha2
  kind: FeatureFlagConfiguration
  metadata:
    name: ledger
    annotations:
      backfill: BF-5302
  spec:
    featureFlagSpec:
      flags:
        fib-algo:
          state: ENABLED
          variants: {recursive: recursive, memo: memo}
          defaultVariant: recursive
- apiVersion: core.openfeature.dev/v1beta1
  kind: FeatureFlag
  metadata:
    name: no-spec
  spec: {}
`

// The Operator's resources are read from files: a FeatureFlag's
// spec.flagSpec (v1beta1), a FeatureFlagConfiguration's featureFlagSpec
// (v1alpha1 JSON text, with its lines; v1alpha2 a map), inside a
// multi-document file or a List. A flag is tied by its own metadata or
// name, or by the resource's labels, annotations or name. A resource
// without its spec is an error at the file naming its line.
func TestOperatorManifestsAreRead(t *testing.T) {
	dir := write(t, map[string]string{
		"deploy/shop.yaml":       operatorManifests,
		"deploy/v1alpha1.yaml":   v1alpha1Manifest,
		"deploy/ledger-list.yml": v1alpha2List,
	})
	sink := collect(t, dir, "deploy")
	want := []string{
		`deploy/ledger-list.yml | flagd: deploy/ledger-list.yml:21: FeatureFlag no-spec: spec.flagSpec: missing; the resource holds its flags there`,
		`deploy/v1alpha1.yaml | flagd: deploy/v1alpha1.yaml:15: spec.featureFlagSpec.flags.bf-5301-broken.state: "enabled"; expected ENABLED or DISABLED`,
	}
	if g := errorsOf(sink); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	got := map[string]model.Artifact{}
	for _, a := range sink.Artifacts {
		got[a.URI] = a
	}
	for uri, w := range map[string]struct {
		id, how, shape, resource string
		state                    model.State
	}{
		"flagd://flags/deploy/shop.yaml#shop/replay-flags/simple-flag":  {"BF-5300", "label", "FeatureFlag", "shop/replay-flags", model.StateEnabled},
		"flagd://flags/deploy/shop.yaml#shop/replay-flags/hex-color":    {"BF-5300", "label", "FeatureFlag", "shop/replay-flags", model.StateEnabled},
		"flagd://flags/deploy/v1alpha1.yaml#end-to-end/bf-5301-welcome": {"bf-5301", "name", "FeatureFlagConfiguration", "end-to-end", model.StateEnabled},
		"flagd://flags/deploy/ledger-list.yml#ledger/fib-algo":          {"BF-5302", "label", "FeatureFlagConfiguration", "ledger", model.StateEnabled},
	} {
		a, ok := got[uri]
		if !ok {
			t.Errorf("%s: not reported; got %v", uri, keys(got))
			continue
		}
		if a.BackfillID != w.id || a.Correlation != w.how || a.Attr(AttrShape) != w.shape || a.Attr(AttrResource) != w.resource || a.State != w.state {
			t.Errorf("%s: id=%s how=%s shape=%s resource=%s state=%s, want %+v", uri, a.BackfillID, a.Correlation,
				a.Attr(AttrShape), a.Attr(AttrResource), a.State, w)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d artifacts, want 4: %v", len(got), keys(got))
	}
	for scope, want := range map[string][2]int{"deploy/shop.yaml": {2, 3}, "deploy/v1alpha1.yaml": {1, 0}, "deploy/ledger-list.yml": {1, 0}} {
		flags, _ := sink.Read(scope, "flags")
		other, _ := sink.Read(scope, "non-flag documents")
		if flags != want[0] || other != want[1] {
			t.Errorf("%s: read %d flags and %d other documents, want %v", scope, flags, other, want)
		}
	}
}

// A folder that also holds Kubernetes manifests and other JSON or YAML
// is read without an error: documents that hold no flags are skipped and
// said so in a note. A document that claims to be flags (a flags key, a
// flagd $schema) and is malformed is still an error.
func TestNonFlagDocumentsAreSkipped(t *testing.T) {
	dir := write(t, map[string]string{
		"config/flags/replay.flagd.json":  `{"flags": {"bf-5400-replay": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}}}`,
		"config/deployments/flagd.yaml":   "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: flagd\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: flagd\n",
		"config/kustomization.yaml":       "resources:\n  - deployments/flagd.yaml\n",
		"config/package.json":             `{"name": "x", "version": "1.0.0"}`,
		"config/empty.yaml":               "# nothing yet\n",
		"config/list.json":                `[1, 2]`,
		"config/broken/schema-only.json":  `{"$schema": "https://flagd.dev/schema/v0/flags.json", "flag": {}}`,
		"config/broken/flags-string.yaml": "flags: on\n",
	})
	sink := collect(t, dir, "config")
	want := []string{
		"config/broken/flags-string.yaml | flagd: config/broken/flags-string.yaml:1: flags: expected a map of flag name to flag, or a list of flags with their key, not the string \"on\"",
		"config/broken/schema-only.json | flagd: config/broken/schema-only.json:1: flags: missing; expected a map of flag name to flag",
	}
	if g := errorsOf(sink); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	if len(sink.Artifacts) != 1 {
		t.Errorf("artifacts %+v", sink.Artifacts)
	}
	notes := strings.Join((&Flagd{}).notesOf(t, dir, "config"), "\n")
	for _, w := range []string{
		"config/deployments/flagd.yaml: skipped 2 documents without flags (apps/v1 Deployment flagd, v1 Service flagd)",
		"config/kustomization.yaml: skipped 1 document without flags (a map without flags)",
		"config/empty.yaml: empty, skipped",
		"config/list.json: skipped 1 document without flags (a list)",
	} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if n, _ := sink.Read("", "non-flag documents"); n != 5 {
		t.Errorf("read %d non-flag documents, want 5", n)
	}
	if n, _ := sink.Read("", "flags"); n != 1 {
		t.Errorf("read %d flags, want 1", n)
	}
}

// notesOf collects dir's entries again and returns the collector's notes.
func (*Flagd) notesOf(t *testing.T, dir string, files ...string) []string {
	t.Helper()
	f := newFlagd(t, dir, files...)
	if _, err := collectortest.Collect(t, f); err != nil {
		t.Fatal(err)
	}
	return f.Notes()
}

func keys(m map[string]model.Artifact) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A ConfigMap whose data entry holds a definition (how flagd's own
// deployment mounts its flag file) is read, with the lines of the text
// inside it; a ConfigMap of other data (an nginx.conf) is a document
// without flags.
func TestConfigMapDefinitionsAreRead(t *testing.T) {
	dir := write(t, map[string]string{"deploy/flagd.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: flagd
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: open-feature-flags
  labels: {backfill_id: BF-5500}
data:
  flags: |
    {
      "flags": {
        "myStringFlag": {
          "state": "ENABLED",
          "variants": {"key1": "val1", "key2": "val2"},
          "defaultVariant": "key1"
        },
        "broken": {"state": "on", "variants": {"a": 1}}
      }
    }
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: nginx-conf
data:
  nginx.conf: |
    events {}
`})
	sink := collect(t, dir, "deploy")
	want := []string{`deploy/flagd.yaml | flagd: deploy/flagd.yaml:20: data.flags: flags.broken.state: "on"; expected ENABLED or DISABLED`}
	if g := errorsOf(sink); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	if len(sink.Artifacts) != 1 {
		t.Fatalf("artifacts %+v", sink.Artifacts)
	}
	a := sink.Artifacts[0]
	if a.URI != "flagd://flags/deploy/flagd.yaml#open-feature-flags/flags/myStringFlag" || a.BackfillID != "BF-5500" ||
		a.State != model.StateEnabled || a.Attr(AttrShape) != "ConfigMap" || a.Attr(AttrResource) != "open-feature-flags" || a.Attr(AttrEntry) != "flags" {
		t.Errorf("%+v", a)
	}
	if n, _ := sink.Read("deploy/flagd.yaml", "non-flag documents"); n != 2 {
		t.Errorf("read %d non-flag documents, want 2 (the Deployment, the nginx ConfigMap)", n)
	}
}
