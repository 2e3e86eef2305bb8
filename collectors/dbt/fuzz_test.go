package dbt

import (
	"os"
	"strings"
	"testing"
)

// FuzzManifest: whatever a manifest holds, the parser does not panic,
// and an error names the file.
func FuzzManifest(f *testing.F) {
	for _, p := range []string{"testdata/v10/target/manifest.json", "testdata/v12/target/manifest.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	v := `{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"}, `
	for _, s := range []string{
		v + `"nodes": {"model.p.a": {"resource_type": "model", "name": "a", "schema": "s", "relation_name": null}}, "parent_map": {"model.p.a": ["model.p.a", "model.p.b"]}}`,
		v + `"nodes": {"model.p.e": {"resource_type": "model", "config": {"materialized": "ephemeral"}}, "model.p.a": {"resource_type": "model", "name": "a", "alias": "a", "schema": "s", "group": "g", "meta": {"owner": ["x", "y"]}}}, "groups": {"group.p.g": {"name": "g", "owner": {"email": 3}}}, "parent_map": {"model.p.a": ["model.p.e"], "model.p.e": ["model.p.a"]}}`,
		v + `"sources": {"source.p.s.t": {"resource_type": "source", "source_name": "s", "name": "t", "version": 2}}}`,
		`{"metadata": null}`, `[]`, `{"metadata": {"dbt_schema_version": 10}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("t/manifest.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "t/manifest.json") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		for _, e := range m.Edges {
			if e.Parent == "" || e.Child == "" || e.Parent == e.Child && e.Via == "" {
				t.Errorf("edge %+v", e)
			}
		}
	})
}

// FuzzRunResults: the same for run_results.json.
func FuzzRunResults(f *testing.F) {
	b, err := os.ReadFile("testdata/runs/2026-05-20/run_results.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/run-results/v6.json"}, "results": [{"unique_id": "m", "status": "success", "timing": [{"name": "execute", "completed_at": null}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParseRunResults("t/run_results.json", data); err != nil && !strings.HasPrefix(err.Error(), "t/run_results.json") {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}
