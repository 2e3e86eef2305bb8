package flagd

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

func flagdArtifact(file, flag string, attrs map[string]string) model.Artifact {
	segs := strings.Split(file, "/")
	for i := range segs {
		segs[i] = url.PathEscape(segs[i])
	}
	return model.Artifact{Kind: model.KindFeatureFlag, System: "flagd", Name: flag,
		URI: "flagd://flags/" + strings.Join(segs, "/") + "#" + url.PathEscape(flag), Attributes: model.TagsOf(attrs)}
}

// The printed jq command, run by sh with the real jq, deletes exactly the
// flag named from the JSON file, whatever the name or the file's name
// holds, and leaves the others.
func TestFlagdJSONRemovalWithJQ(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "fl ags", "a'b $x.json")
		doc := map[string]any{"flags": map[string]any{name: map[string]any{"state": "ENABLED"}, "keep": map[string]any{"state": "ENABLED"}}}
		b, _ := json.Marshal(doc)
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		a := flagdArtifact("fl ags/a'b $x.json", name, map[string]string{AttrFile: file})
		r, ok := remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{}, remedy.Facts{Artifact: &a})
		if !ok || len(r.Actions) != 1 || r.Actions[0].Name != remedy.DeleteFlag || r.Actions[0].Step != model.StepNormalized || !r.Actions[0].Resolves {
			t.Fatalf("%q: %+v", name, r)
		}
		cmd := exec.Command("sh", "-c", "set -eu\n"+r.Actions[0].Shell)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%q: %v\n%s\n%s", name, err, out, r.Actions[0].Shell)
		}
		if ents, _ := filepath.Glob(filepath.Join(dir, "pwned*")); len(ents) > 0 {
			t.Fatalf("%q broke out of its quoting", name)
		}
		var after struct{ Flags map[string]any }
		b, _ = os.ReadFile(file)
		if err := json.Unmarshal(b, &after); err != nil {
			t.Fatal(err)
		}
		if _, ok := after.Flags[name]; ok || len(after.Flags) != 1 || after.Flags["keep"] == nil {
			t.Errorf("%q: flags after: %v", name, after.Flags)
		}
	}
}

// A YAML file is edited in place by yq; the name reaches it in FLAG, out
// of its expression. Without the file attribute (a report's finding) the
// path comes from the URI.
func TestFlagdYAMLRemoval(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		a := flagdArtifact("flags/"+name+".yaml", name, nil)
		r, _ := remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{}, remedy.Facts{Artifact: &a})
		if len(r.Actions) != 1 {
			t.Fatalf("%q: %+v", name, r)
		}
		sh := r.Actions[0].Shell
		remedytest.ShSyntax(t, sh)
		calls := remedytest.RunShell(t, `yq() { record yq "FLAG=$FLAG" "$@"; }`+"\n"+sh)
		want := []string{"FLAG=" + name, "-i", "del(.flags[strenv(FLAG)])", "flags/" + name + ".yaml"}
		if len(calls) != 1 || !slices.Equal(calls[0].Args, want) {
			t.Errorf("%q: calls %+v, want yq %q", name, calls, want)
		}
	}
}

// From a finding alone (BF007's recipe says alert) the URI says it is a
// flag, which one, and in what file.
func TestInferFlagdFromTheURI(t *testing.T) {
	a := flagdArtifact("flags/replay.flagd.json", "bf-1/x#y", nil)
	got := remedy.InferArtifact(model.Finding{RuleID: "BF007", ArtifactURI: a.URI})
	if got == nil || got.Kind != model.KindFeatureFlag || got.Name != "bf-1/x#y" {
		t.Fatalf("inferred %+v", got)
	}
	e, ok := ParseFlagd(got)
	if !ok || e.File != "flags/replay.flagd.json" || e.Flag != "bf-1/x#y" {
		t.Errorf("ParseFlagd = %+v %v", e, ok)
	}
	abs := model.Artifact{Kind: model.KindFeatureFlag, URI: "flagd://flags//etc/flagd/f.yaml#a"}
	if e, ok := ParseFlagd(&abs); !ok || e.File != "/etc/flagd/f.yaml" {
		t.Errorf("absolute path: %+v %v", e, ok)
	}
}

// A flag of flagd's list form is deleted by its key: the printed jq
// command, run with the real jq, leaves the other entries.
func TestFlagdArrayFormRemoval(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "flags.json")
	os.WriteFile(file, []byte(`{"flags": [{"key": "keep", "state": "ENABLED"}, {"key": "bf-1-replay", "state": "ENABLED"}]}`), 0o644)
	a := flagdArtifact("flags.json", "bf-1-replay", map[string]string{AttrFile: file, AttrShape: "array"})
	r, _ := remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{}, remedy.Facts{Artifact: &a})
	if len(r.Actions) != 1 {
		t.Fatalf("%+v", r)
	}
	if out, err := exec.Command("sh", "-c", "set -eu\n"+r.Actions[0].Shell).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, r.Actions[0].Shell)
	}
	b, _ := os.ReadFile(file)
	var after struct{ Flags []map[string]string }
	if err := json.Unmarshal(b, &after); err != nil || len(after.Flags) != 1 || after.Flags[0]["key"] != "keep" {
		t.Errorf("after: %s (%v)", b, err)
	}
	y := flagdArtifact("flags.yaml", "bf-1-replay", map[string]string{AttrShape: "array"})
	r, _ = remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{}, remedy.Facts{Artifact: &y})
	if len(r.Actions) != 1 || !strings.Contains(r.Actions[0].Shell, `'del(.flags[] | select(.key == strenv(FLAG)))'`) {
		t.Errorf("yaml: %+v", r.Actions)
	}
}

// A flag an Operator resource holds in a file gets no jq or yq command
// (its flags are not at .flags): the remedy says which resource to edit
// in which file. The URI alone says so too.
func TestFlagdResourceFlagIsManual(t *testing.T) {
	a := model.Artifact{Kind: model.KindFeatureFlag, System: "flagd", Name: "simple-flag",
		URI:        "flagd://flags/deploy/end-to-end.yaml#open-feature-demo/featureflag-sample/simple-flag",
		Attributes: model.TagsOf(map[string]string{AttrShape: "FeatureFlag", AttrFile: "deploy/end-to-end.yaml", "resource": "open-feature-demo/featureflag-sample"})}
	cm := model.Artifact{Kind: model.KindFeatureFlag, System: "flagd", Name: "myStringFlag",
		URI:        "flagd://flags/deploy/flagd.yaml#open-feature-flags/flags/myStringFlag",
		Attributes: model.TagsOf(map[string]string{AttrShape: "ConfigMap", "resource": "open-feature-flags", "entry": "flags"})}
	for _, tc := range []struct {
		a    *model.Artifact
		want string
	}{
		{&a, "Remove flag simple-flag from the FeatureFlag open-feature-demo/featureflag-sample in deploy/end-to-end.yaml (spec.flagSpec.flags)"},
		{remedy.InferArtifact(model.Finding{RuleID: "BF017", ArtifactURI: a.URI}), "Remove flag simple-flag from the resource open-feature-demo/featureflag-sample in deploy/end-to-end.yaml"},
		{&cm, "Remove flag myStringFlag from the definition in data.flags of the ConfigMap open-feature-flags in deploy/flagd.yaml"},
	} {
		r, _ := remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{}, remedy.Facts{Artifact: tc.a})
		if len(r.Actions) != 0 || r.Human == nil || !strings.Contains(r.Human.What, tc.want) {
			t.Errorf("%+v %+v, want %q", r.Actions, r.Human, tc.want)
		}
	}
	if got := remedy.InferArtifact(model.Finding{RuleID: "BF017", ArtifactURI: a.URI}); got.Name != "simple-flag" {
		t.Errorf("name %q", got.Name)
	}
}
