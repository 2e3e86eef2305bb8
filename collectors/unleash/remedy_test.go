package unleash

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// The curl call that archives an Unleash flag, run by sh, sends the token
// from $UNLEASH_TOKEN alone and reaches exactly the flag's path, whatever
// its project and name hold; the token is never in the command.
func TestUnleashArchiveCommand(t *testing.T) {
	t.Setenv("UNLEASH_TOKEN", "*:*.from-the-environment")
	t.Setenv("UNLEASH_URL", "https://unleash.from.env")
	for _, name := range remedytest.HostileNames {
		for _, api := range []string{"http://unleash:4242", ""} {
			uri := "unleash://u/projects/" + url.PathEscape("p "+name) + "/features/" + url.PathEscape(name)
			a := model.Artifact{Kind: model.KindFeatureFlag, System: "unleash", Name: name, URI: uri, State: model.StateEnabled,
				Attributes: model.Attrs(model.AttrProject, "p "+name)}
			if api != "" {
				a.SetAttr(model.AttrAPIURL, api+"/")
			}
			r, ok := remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{BackfillID: "BF-1", ArtifactURI: uri}, remedy.Facts{Artifact: &a})
			if name == "" {
				if ok && len(r.Actions) > 0 {
					t.Errorf("a command for a flag without a name: %+v", r.Actions)
				}
				continue
			}
			if !ok || len(r.Actions) != 1 {
				t.Fatalf("%q: %+v", name, r)
			}
			act := r.Actions[0]
			if act.Name != remedy.ArchiveFlag || act.Step != model.StepNormalized || !act.Resolves || !remedy.Reversible(act.Name) {
				t.Errorf("action %+v", act)
			}
			if strings.Contains(act.Shell, "from-the-environment") || !strings.Contains(act.Shell, "$UNLEASH_TOKEN") && !strings.Contains(act.Shell, "${UNLEASH_TOKEN") {
				t.Errorf("the command does not take the token from the environment: %s", act.Shell)
			}
			remedytest.ShSyntax(t, act.Shell)
			calls := remedytest.RunShell(t, act.Shell)
			base := api
			if base == "" {
				base = "https://unleash.from.env"
			}
			want := []string{"-fsS", "-X", "DELETE", "-H", "Authorization: *:*.from-the-environment",
				base + "/api/admin/projects/" + url.PathEscape("p "+name) + "/features/" + url.PathEscape(name)}
			if len(calls) != 1 || calls[0].Prog != "curl" || !slices.Equal(calls[0].Args, want) {
				t.Errorf("%q: calls %+v\nwant curl %q", name, calls, want)
			}
		}
	}
}

// A report holds findings, not artifacts: the flag's kind, name and
// project come back from its URI; an archived flag gets no command.
func TestUnleashInfer(t *testing.T) {
	a := remedy.InferArtifact(model.Finding{ArtifactURI: "unleash://u/projects/pay%2Fments/features/bf-1-x", BackfillID: "BF-1"})
	if a == nil || a.Kind != model.KindFeatureFlag || a.Name != "bf-1-x" || a.Attr(model.AttrProject) != "pay/ments" {
		t.Fatalf("inferred %+v", a)
	}
	r, ok := remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{}, remedy.Facts{Artifact: a})
	if !ok || len(r.Actions) != 1 || !strings.Contains(r.Actions[0].Shell, `}"/api/admin/projects/pay%2Fments/features/bf-1-x`) {
		t.Errorf("command from the URI alone: %+v", r)
	}
	for _, uri := range []string{"unleash://u/projects/p", "unleash://u/features/x", "unleash://u/projects//features/x"} {
		if a := remedy.InferArtifact(model.Finding{ArtifactURI: uri}); a != nil && a.Kind == model.KindFeatureFlag {
			t.Errorf("%s inferred as a flag: %+v", uri, a)
		}
	}
	archived := model.Artifact{Kind: model.KindFeatureFlag, System: "unleash", Name: "x", URI: "unleash://u/projects/p/features/x",
		Attributes: model.Attrs(model.AttrArchived, "true")}
	if r, _ := remedy.BuildWith(remedy.Remove(model.StepNormalized), model.Finding{}, remedy.Facts{Artifact: &archived}); len(r.Actions) != 0 {
		t.Errorf("an archived flag is archived again: %+v", r.Actions)
	}
}
