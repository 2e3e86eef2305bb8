package inventory

import (
	"strings"
	"testing"
)

// FuzzParse: no input panics; every error names the file; every artifact
// kept is valid and carries the file as its scope.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		warehouse, "", "null", "artifacts: []\n", "artifacts:\n", `{"artifacts": [{"kind": "alert", "uri": "m://1"}]}`,
		`{"artifacts": [`, "artifacts:\n  - kind: table\n    uri: [unclosed", "- a\n", "artifacts: &x [*x]\n",
		"d: &d {kind: table}\nartifacts:\n  - <<: *d\n    uri: t://1\n  - *d\n", "artifacts: {a: 1}\n",
		"artifacts:\n  - kind: table\n    uri: t://1\n    labels: [a]\n    created_at: yesterday\n", "artifacts: *nope\n",
		"x: &l [1]\nartifacts: *l\n", "artifacts:\n  - 42\n  - null\n  - [kind, table]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		arts, errs := Parse("inventory/fuzz.yaml", data, "")
		for _, e := range errs {
			if !strings.HasPrefix(e.Error(), "inventory/fuzz.yaml") {
				t.Errorf("error does not name the file: %q", e)
			}
		}
		for _, a := range arts {
			if a.Scope != "inventory/fuzz.yaml" || !a.Kind.IsValid() || strings.TrimSpace(a.URI) == "" {
				t.Errorf("bad artifact kept: %+v", a)
			}
		}
	})
}
