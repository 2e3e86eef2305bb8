package glue

import (
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// The command, run under sh with aws recorded: every hostile name reaches
// aws as one argument, intact, with the account as the catalog.
func TestCommandUnderSh(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		a := model.Artifact{URI: TableURI("src", roleAccount, mainRegion, name+"_db", name), Attributes: model.Attrs(AttrLocation, "s3://b/tmp/bf-1234/")}
		var r remedy.Remedy
		removal(&r, &a)
		if len(r.Actions) != 1 {
			t.Fatalf("%q: actions %+v", name, r.Actions)
		}
		act := r.Actions[0]
		if act.Name != remedy.DropTable || !act.Resolves || act.Step != model.StepRetired || remedy.Reversible(act.Name) {
			t.Errorf("%q: action %+v", name, act)
		}
		calls := remedytest.RunShell(t, act.Shell)
		want := []string{"glue", "delete-table", "--region=eu-west-1", "--catalog-id=222222222222", "--database-name=" + name + "_db", "--name=" + name}
		if len(calls) != 1 || calls[0].Prog != "aws" || !slices.Equal(calls[0].Args, want) {
			t.Errorf("%q: calls %+v, want aws %q", name, calls, want)
		}
		if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "s3://b/tmp/bf-1234/") {
			t.Errorf("%q: notes %q, want the data left in place named", name, r.Notes)
		}
	}
}

// From a finding alone (a report holds no artifacts), the URI gives the
// kind and the command; a view has no data to leave behind.
func TestFromTheURIAlone(t *testing.T) {
	f := model.Finding{RuleID: "BF005", BackfillID: "BF-1234", ArtifactURI: "glue://aws-catalog/111111111111/eu-west-1/analytics/refunds_bf_1234_tmp"}
	a := remedy.InferArtifact(f)
	if a == nil || a.Kind != model.KindTable || a.Name != "analytics.refunds_bf_1234_tmp" {
		t.Fatalf("inferred %+v", a)
	}
	r, ok := remedy.BuildWith(remedy.Remove(model.StepRetired), f, remedy.Facts{Artifact: a})
	want := "aws glue delete-table --region=eu-west-1 --catalog-id=111111111111 --database-name=analytics --name=refunds_bf_1234_tmp"
	if !ok || len(r.Actions) != 1 || r.Actions[0].Shell != want {
		t.Errorf("remedy %+v, want %s", r.Actions, want)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "its location") {
		t.Errorf("notes %q", r.Notes)
	}
	view := model.Artifact{URI: f.ArtifactURI, Attributes: model.Attrs(AttrTableType, "VIRTUAL_VIEW")}
	var rv remedy.Remedy
	removal(&rv, &view)
	if len(rv.Notes) != 0 {
		t.Errorf("a view's notes %q", rv.Notes)
	}
}
