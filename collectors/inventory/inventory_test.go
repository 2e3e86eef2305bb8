package inventory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

func TestParseYAMLAndJSON(t *testing.T) {
	y := "artifacts:\n  - kind: alert\n    uri: mon://a/1\n    name: watch\n    state: enabled\n    expires_at: 2026-03-01\n    attributes: {watches_backfill: \"true\"}\n"
	j := `{"artifacts": [{"kind": "feature_flag", "uri": "flags://f/1", "backfill_id": "BF-9", "labels": {"team": "x"}}]}`
	for name, data := range map[string]string{"yaml": y, "json": j} {
		t.Run(name, func(t *testing.T) {
			arts, errs := Parse("f", []byte(data), "exports")
			if len(errs) > 0 || len(arts) != 1 {
				t.Fatalf("arts=%v errs=%v", arts, errs)
			}
			if arts[0].System != "exports" {
				t.Errorf("system = %q, want the default", arts[0].System)
			}
		})
	}
	arts, _ := Parse("f", []byte(y), "")
	if arts[0].ExpiresAt.IsZero() || !arts[0].BoolAttr(model.AttrWatchesOnly) {
		t.Errorf("fields lost: %+v", arts[0])
	}
}

func TestParseBadEntriesKeepsGoodOnes(t *testing.T) {
	data := `artifacts:
  - kind: alert
    uri: mon://ok
  - kind: spaceship
    uri: x://1
  - kind: table
  - kind: table
    uri: t://1
    colour: blue
  - kind: table
    uri: t://2
    created_at: yesterday
  - kind: table
    uri: t://3
    state: gone
`
	arts, errs := Parse("inv.yaml", []byte(data), "")
	if len(arts) != 1 || arts[0].URI != "mon://ok" {
		t.Errorf("kept %v, want only mon://ok", arts)
	}
	want := []string{
		`inv.yaml:4: artifacts[1].kind: unknown kind "spaceship"`,
		"inv.yaml:6: artifacts[2].uri: missing",
		"inv.yaml:9: artifacts[3].colour: unknown key",
		"inv.yaml:12: artifacts[4].created_at:",
		`inv.yaml:15: artifacts[5].state: unknown state "gone"`,
	}
	if len(errs) != len(want) {
		t.Fatalf("errors = %v", errs)
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, errs[i], w)
		}
	}
	if !strings.Contains(errs[2].Error(), "colour") {
		t.Errorf("unknown key not named: %v", errs[2])
	}
}

// A file refused whole says so as every parser does: path:line: key:
// what is wrong (path: alone when no line applies).
func TestParseWholeFileErrors(t *testing.T) {
	for _, tt := range []struct{ path, data, want string }{
		{"x.json", `{"artifacts": [`, "x.json:1: did not find expected node content"},
		{"x.yaml", "things: []\n", "x.yaml:1: artifacts: missing; expected a list of artifacts"},
		{"x.yaml", "# none\nartifacts: {}\n", "x.yaml:2: artifacts: expected a list of artifacts (an empty list [] when there are none)"},
		{"x.yaml", "\nnull\n", `x.yaml:2: holds null; expected {"artifacts": [...]}`},
		{"x.yaml", "artifacts: []\nartifacts: []\n", `x.yaml:2: mapping key "artifacts" already defined at line 1`},
		{"x.yaml", "# only a comment\n", `x.yaml: holds no document (only comments); expected {"artifacts": [...]}`},
	} {
		if _, errs := Parse(tt.path, []byte(tt.data), ""); len(errs) != 1 || errs[0].Error() != tt.want {
			t.Errorf("%q: errors %v, want %q", tt.data, errs, tt.want)
		}
	}
}

func TestCollectMissingFileDegradesOnlyThatFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("artifacts:\n  - {kind: alert, uri: 'm://1'}\n"), 0o644)
	inv := inDir(t, &Inventory{Files: []string{"a.yaml", "missing.yaml"}}, dir)
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), inv, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.Artifacts) != 1 || len(sink.Errors) != 1 || sink.Errors[0].Scope != "missing.yaml" {
		t.Errorf("artifacts=%d errors=%+v", len(sink.Artifacts), sink.Errors)
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	var entries []map[string]any
	if err := yaml.Unmarshal([]byte(sample), &entries); err != nil {
		t.Fatal(err)
	}
	if _, err := collectors.Decode(entries[0], collectors.Env{}); err != nil {
		t.Fatal(err)
	}
	if _, err := collectors.Decode(map[string]any{"type": "inventory"}, collectors.Env{}); err == nil || !strings.Contains(err.Error(), "files: missing") {
		t.Errorf("want files: missing, got %v", err)
	}
}

// A misspelt key or kind gets the nearest known one, as config and plan
// errors do.
func TestParseSuggestsNearest(t *testing.T) {
	data := `artifacts:
  - kind: tabel
    uri: t://1
  - kind: table
    uri: t://2
    ownr: data-eng
`
	_, errs := Parse("inv.yaml", []byte(data), "")
	want := []string{
		`inv.yaml:2: artifacts[0].kind: unknown kind "tabel"; did you mean table?`,
		`inv.yaml:6: artifacts[1].ownr: unknown key; did you mean owner?`,
	}
	if len(errs) != len(want) {
		t.Fatalf("errors = %v", errs)
	}
	for i, w := range want {
		if errs[i].Error() != w {
			t.Errorf("error %d = %q, want %q", i, errs[i], w)
		}
	}
}

// A keep label exported with the artifact is read as its system reads it:
// the rules then turn it into a waiver of origin resource.
func TestKeepLabelInLabels(t *testing.T) {
	y := "artifacts:\n  - kind: table\n    uri: bigquery://p/d/t\n    labels: {bfaudit-keep-until: 2027-01-31, bfaudit-keep-reason: finance-audit-q1}\n" +
		"  - kind: table\n    uri: bigquery://p/d/u\n    labels: {team: x}\n"
	arts, errs := Parse("f", []byte(y), "")
	if len(errs) > 0 || len(arts) != 2 {
		t.Fatalf("arts=%v errs=%v", arts, errs)
	}
	if got := arts[0].Attr(model.AttrKeepUntil) + " / " + arts[0].Attr(model.AttrKeepReason); got != "2027-01-31 / finance audit q1" {
		t.Errorf("keep label read as %q", got)
	}
	if arts[1].Attr(model.AttrKeepUntil) != "" {
		t.Errorf("an artifact without a keep label got one: %v", arts[1].Attributes)
	}
}
