package dbt

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The fixtures are what dbt writes: each validates against dbt's
// published schema of its version (testdata/README.md), so the parser is
// tested on the real shape, not on a shape of our own.
func TestFixturesFollowTheDbtSchemas(t *testing.T) {
	for fixture, schema := range map[string]string{
		"v10/target/manifest.json":         "manifest-v10.json",
		"v11/target/manifest.json":         "manifest-v11.json",
		"v12/target/manifest.json":         "manifest-v12.json",
		"runs/2026-05-01/run_results.json": "run-results-v5.json",
		"runs/2026-05-20/run_results.json": "run-results-v6.json",
	} {
		t.Run(fixture, func(t *testing.T) {
			s := compile(t, schema)
			if err := s.Validate(load(t, filepath.Join("testdata", fixture))); err != nil {
				t.Errorf("%s does not follow %s: %v", fixture, schema, err)
			}
		})
	}
}

// The schemas refuse what the parser refuses: a validator that passed
// everything would prove nothing about the fixtures.
func TestTheSchemasRefuseABrokenManifest(t *testing.T) {
	s := compile(t, "manifest-v12.json")
	doc := load(t, "testdata/v12/target/manifest.json").(map[string]any)
	doc["nodes"].(map[string]any)["model.jaffle.fct_revenue"].(map[string]any)["relation_name"] = json.Number("42")
	if err := s.Validate(doc); err == nil {
		t.Error("a relation_name that is a number validates")
	}
}

func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	doc := load(t, filepath.Join("testdata", "schemas", name))
	id := doc.(map[string]any)["$id"].(string)
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func load(t *testing.T, path string) any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}
