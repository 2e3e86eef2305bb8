package pushgateway

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// The curl call that deletes a group, run by sh, reaches exactly the
// group's path on the gateway the group was read from (or
// $PUSHGATEWAY_URL), whatever its job and labels hold.
func TestDeleteCommand(t *testing.T) {
	t.Setenv("PUSHGATEWAY_URL", "https://pgw.from.env")
	for _, name := range remedytest.HostileNames {
		for _, api := range []string{"http://pgw:9091/", ""} {
			labels := map[string]string{"job": "j" + name, "backfill_id": "BF-1", "note": name}
			a := model.Artifact{Kind: model.KindCheckpoint, System: "pushgateway", URI: "pushgateway://pg" + keyPath(labels),
				Attributes: model.Attrs(model.AttrAPIURL, api)}
			r, ok := remedy.Build(model.Finding{RuleID: "BF021", BackfillID: "BF-1", ArtifactURI: a.URI}, remedy.Facts{Artifact: &a})
			if !ok || len(r.Actions) != 1 {
				t.Fatalf("%q: %+v", name, r)
			}
			act := r.Actions[0]
			if act.Name != DeleteMetricGroup || act.Step != model.StepRetired || !act.Resolves || remedy.Reversible(act.Name) ||
				(api == "") != slices.Equal(act.Needs, []string{"PUSHGATEWAY_URL"}) {
				t.Errorf("action %+v", act)
			}
			remedytest.ShSyntax(t, act.Shell)
			calls := remedytest.RunShell(t, act.Shell)
			base := strings.TrimSuffix(api, "/")
			if base == "" {
				base = "https://pgw.from.env"
			}
			if len(calls) != 1 || calls[0].Prog != "curl" || !slices.Equal(calls[0].Args[:3], []string{"-fsS", "-X", "DELETE"}) || len(calls[0].Args) != 4 {
				t.Fatalf("%q: calls %+v", name, calls)
			}
			path, ok := strings.CutPrefix(calls[0].Args[3], base+"/metrics")
			if !ok || !maps.Equal(labelsOf(t, path), labels) {
				t.Errorf("%q: curl reached %s, not the group %v", name, calls[0].Args[3], labels)
			}
		}
	}
}

// A report holds findings, not artifacts: the group comes back from its
// URI, and the command asks for the gateway's address.
func TestInferFromTheURI(t *testing.T) {
	f := model.Finding{RuleID: "BF021", BackfillID: "BF-1234", ArtifactURI: "pushgateway://pg/job/bf_1234_replay/path@base64/YS9i"}
	a := remedy.InferArtifact(f)
	if a == nil || a.Kind != model.KindCheckpoint || a.Name != "job/bf_1234_replay/path@base64/YS9i" {
		t.Fatalf("inferred %+v", a)
	}
	r, ok := remedy.For(f, nil)
	want := `curl -fsS -X DELETE "${PUSHGATEWAY_URL:?set PUSHGATEWAY_URL to the Pushgateway address}"/metrics/job/bf_1234_replay/path@base64/YS9i`
	if !ok || len(r.Actions) != 1 || r.Actions[0].Shell != want {
		t.Errorf("from the URI alone: %+v\nwant %s", r, want)
	}
	f.ArtifactURI = "pushgateway://pg/job/a%2Fb"
	if r, _ := remedy.For(f, nil); len(r.Actions) != 0 {
		t.Errorf("a command for a URI the collector never writes: %+v", r.Actions)
	}
}
