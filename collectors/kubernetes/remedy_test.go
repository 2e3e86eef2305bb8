package kubernetes

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// A FeatureFlag resource holding only this flag is deleted; one holding
// others loses this flag through a JSON patch, its name escaped as a JSON
// pointer token. From a report (no count) the patch is used.
func TestFeatureFlagRemoval(t *testing.T) {
	for _, name := range append([]string{"a/b~c"}, remedytest.HostileNames...) {
		if name == "" {
			continue
		}
		uri := "kubernetes://k8s/" + url.PathEscape(name) + "/featureflags/" + url.PathEscape(name) + "#" + url.PathEscape(name)
		only := model.Artifact{Kind: model.KindFeatureFlag, System: "kubernetes", URI: uri, Attributes: model.TagsOf(map[string]string{"featureflag_flags": "1"})}
		r, _ := remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{}, remedy.Facts{Artifact: &only})
		if len(r.Actions) != 1 || r.Actions[0].Name != remedy.DeleteFlag {
			t.Fatalf("%q: %+v", name, r)
		}
		calls := remedytest.RunShell(t, r.Actions[0].Shell)
		want := append([]string{"delete", "featureflag", "--namespace=" + name}, remedytest.Dashed(name)...)
		if len(calls) != 1 || calls[0].Prog != "kubectl" || !slices.Equal(calls[0].Args, want) {
			t.Errorf("%q: delete calls %+v, want %q", name, calls, want)
		}

		shared := model.Artifact{Kind: model.KindFeatureFlag, System: "kubernetes", URI: uri, Attributes: model.TagsOf(map[string]string{"featureflag_flags": "3"})}
		inferred := remedy.InferArtifact(model.Finding{RuleID: "BF007", ArtifactURI: uri})
		for _, a := range []*model.Artifact{&shared, inferred} {
			r, _ := remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{}, remedy.Facts{Artifact: a})
			if len(r.Actions) != 1 {
				t.Fatalf("%q: %+v", name, r)
			}
			calls := remedytest.RunShell(t, r.Actions[0].Shell)
			if len(calls) != 1 || len(calls[0].Args) < 5 || calls[0].Args[1] != "featureflag" {
				t.Fatalf("%q: patch calls %+v", name, calls)
			}
			var patch []map[string]string
			if err := json.Unmarshal([]byte(strings.TrimPrefix(calls[0].Args[4], "--patch=")), &patch); err != nil {
				t.Fatalf("%q: %v in %q", name, err, calls[0].Args)
			}
			token := strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
			if len(patch) != 1 || patch[0]["op"] != "remove" || patch[0]["path"] != "/spec/flagSpec/flags/"+token {
				t.Errorf("%q: patch %v", name, patch)
			}
		}
	}
	if FlagRemovalPatch("a/b~c") != `[{"op":"remove","path":"/spec/flagSpec/flags/a~1b~0c"}]` {
		t.Errorf("patch %s", FlagRemovalPatch("a/b~c"))
	}
}
