package flagd

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/correlate"
)

const flagFile = `metadata: {flagSetId: shop, backfill: BF-9}
flags:
  replay:
    state: ENABLED
    variants: {"on": true, "off": false}
    defaultVariant: "on"
    metadata: {backfillId: BF-10, sideEffectGuard: "true", replay_variant: "on"}
  plain:
    state: DISABLED
    variants: {a: "x"}
`

func TestParseMergesMetadataAndReadsTheDefault(t *testing.T) {
	doc, errs, fatal := Parse("f.yaml", []byte(flagFile), true)
	if fatal != nil || len(errs) > 0 || len(doc.Flags) != 2 {
		t.Fatalf("Parse: %v %v %+v", fatal, errs, doc)
	}
	r := doc.Flags[0]
	if r.Name != "replay" || r.Line != 3 || !r.On() || r.Metadata["backfill"] != "BF-9" || r.Metadata["flagSetId"] != "shop" {
		t.Errorf("replay: %+v", r)
	}
	sel := correlate.MustSelector()
	// The flag's own metadata, camelCase, ties it before the file's.
	if id, how, ok := r.Tie(sel, "u", nil, ""); !ok || id != "BF-10" || how != "label" {
		t.Errorf("tie: %s %s %v", id, how, ok)
	}
	a := r.Artifact("flagd", "u", "f.yaml")
	if a.Attr("side_effect_guard") != "true" || a.Attr("replay_position") != "on" || a.Attr("position") != "on" {
		t.Errorf("attributes %v", a.Attributes)
	}
	p := doc.Flags[1]
	if p.On() || p.DefaultVariant != "" {
		t.Errorf("plain: %+v", p)
	}
	// Without lines (a resource's spec), errors name only the place.
	_, errs, _ = Parse("ns/ff: spec.flagSpec", []byte(`{"flags": {"x": {"state": "ON", "variants": {"a": 1}}}}`), false)
	if len(errs) != 1 || errs[0].Error() != `ns/ff: spec.flagSpec: flags.x.state: "ON"; expected ENABLED or DISABLED` {
		t.Errorf("errs %v", errs)
	}
}

// A default variant's value is an "on" position unless it says off: an
// ENABLED flag of string or object variants serves its value to everyone.
func TestServesOn(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{{true, true}, {false, false}, {"on", true}, {"ON", true}, {"true", true}, {"off", false}, {"False", false},
		{"#ff0000", true}, {"recursive", true}, {"", true},
		{1, true}, {0, false}, {0.5, true}, {0.0, false}, {nil, false}, {map[string]any{"a": 1}, true}} {
		if got := servesOn(tc.v); got != tc.want {
			t.Errorf("servesOn(%v) = %v", tc.v, got)
		}
	}
}

// FuzzParse: no input panics; every error names the document; every flag
// kept has a name, a valid state and a default variant among its variants.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		flagFile, "", "null", "flags: {}\n", "flags:\n", "flags: []\n", `{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}}}`,
		`{"flags": {`, "flags:\n  a: &x {state: ENABLED, variants: {v: *x}}\n", "v: &v {on: 1}\nflags:\n  a: {state: ENABLED, variants: *v, defaultVariant: on}\n",
		"flags: {a: {state: ENABLED, variants: {}}}\n", "flags: {a: 1, a: 2}\n", "metadata: [1]\nflags: {}\n", "flags: *nope\n",
		"flags:\n  ? [a]\n  : {state: ENABLED}\n", "flags: {a: {state: DISABLED, variants: {x: [1]}, defaultVariant: x, metadata: {k: {}}}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, errs, fatal := Parse("fuzz.yaml", data, true)
		if fatal != nil {
			if !strings.HasPrefix(fatal.Error(), "fuzz.yaml") || len(doc.Flags) > 0 || len(errs) > 0 {
				t.Errorf("fatal %q with flags %v errs %v", fatal, doc.Flags, errs)
			}
			return
		}
		for _, e := range errs {
			if !strings.HasPrefix(e.Error(), "fuzz.yaml") {
				t.Errorf("error does not name the document: %q", e)
			}
		}
		for _, fl := range doc.Flags {
			if fl.Name == "" || (fl.State != "ENABLED" && fl.State != "DISABLED") || len(fl.Variants) == 0 {
				t.Errorf("bad flag kept: %+v", fl)
			}
			if fl.DefaultVariant != "" && !contains(fl.Variants, fl.DefaultVariant) {
				t.Errorf("default variant %q not among %v", fl.DefaultVariant, fl.Variants)
			}
		}
	})
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// FuzzParseFile: no input panics; every error names the file; every flag
// kept is one a reader can judge.
func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		flagFile, "", "---\n---\n", "flags: []\n", "flags:\n  - key: a\n    state: ENABLED\n    variants: {on: true}\n",
		"apiVersion: core.openfeature.dev/v1beta1\nkind: FeatureFlag\nmetadata: {name: x}\nspec:\n  flagSpec:\n    flags: {a: {state: ENABLED, variants: {on: 1}}}\n",
		"apiVersion: core.openfeature.dev/v1alpha1\nkind: FeatureFlagConfiguration\nmetadata: {name: x}\nspec:\n  featureFlagSpec: |\n    {\"flags\": {\"a\": {\"state\": \"ENABLED\", \"variants\": {\"on\": true}}}}\n",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n", "apiVersion: apps/v1\nkind: Deployment\n---\n[1]\n",
		"apiVersion: core.openfeature.dev/v1alpha1\nkind: FeatureFlagConfiguration\nspec:\n  featureFlagSpec: \"{\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, fatal := ParseFile("fuzz.yaml", data)
		if fatal != nil {
			if !strings.HasPrefix(fatal.Error(), "fuzz.yaml") {
				t.Errorf("fatal %q does not name the file", fatal)
			}
			return
		}
		for _, e := range file.Errs {
			if !strings.HasPrefix(e.Error(), "fuzz.yaml") {
				t.Errorf("error does not name the file: %q", e)
			}
		}
		for _, s := range file.Sets {
			for _, fl := range s.Flags {
				if fl.Name == "" || (fl.State != "ENABLED" && fl.State != "DISABLED") || len(fl.Variants) == 0 {
					t.Errorf("bad flag kept: %+v", fl)
				}
			}
		}
	})
}
