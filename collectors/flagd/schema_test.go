package flagd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// The fixtures are what flagd itself accepts: each good one validates
// against the official schema (testdata/README.md), and the broken one
// does not. The schema does not check that a default variant is one of
// the variants; flagd refuses it when it loads the file, and so does the
// collector.
func TestFixturesFollowTheFlagdSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	for _, name := range []string{"flags.json", "targeting.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "schema", name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.AddResource("https://flagd.dev/schema/v0/"+name, doc); err != nil {
			t.Fatal(err)
		}
	}
	schema, err := c.Compile("https://flagd.dev/schema/v0/flags.json")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "flags", "*"))
	if len(files) < 3 {
		t.Fatalf("fixtures: %v", files)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := yaml.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		err = schema.Validate(inst)
		switch broken := strings.HasPrefix(filepath.Base(f), "broken"); {
		case broken && err == nil:
			t.Errorf("%s validates, but it is meant to break the schema", f)
		case !broken && err != nil:
			t.Errorf("%s does not follow the flagd schema: %v", f, err)
		}
	}
}
