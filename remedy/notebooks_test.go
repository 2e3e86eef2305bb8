package remedy

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// A notebook keeping a credential gets no command (nothing for fix
// --apply) but a person's act at the access-revoked step: rotate first,
// then clear the outputs of that file and remove the secret; the key ids
// and where each secret is are named, the secret's hash is not needed.
func TestNotebookRemedyIsManual(t *testing.T) {
	uri := "notebooks://nb/corrections/bf-1234%20fix.ipynb"
	a := model.Artifact{Kind: model.KindNotebook, System: "notebooks", URI: uri, Name: "corrections/bf-1234 fix.ipynb"}
	a.SetAttr(model.AttrSecrets, "aws-access-token\tcell 2 line 1\t0123456789ab\ngcp-service-account-key\tcell 3 output 1 line 2\tba9876543210")
	a.SetAttr(model.AttrKeyIDs, "7c0ffee1d2b3")
	f := model.Finding{RuleID: "BF014", BackfillID: "BF-1234", ArtifactURI: uri}
	for _, facts := range []Facts{{Artifact: &a}, {Artifact: inferArtifact(f)}} {
		r, ok := buildWith(Remove(model.StepRetired), f, facts)
		if !ok || len(r.Actions) != 0 || r.Human == nil {
			t.Fatalf("remedy %+v", r)
		}
		h := r.Human
		if h.Step != model.StepAccessRevoked || h.Where != uri ||
			!strings.HasPrefix(h.What, "Rotate the key first (it is live until revoked), then clear the outputs with `jupyter nbconvert --clear-output --inplace 'corrections/bf-1234 fix.ipynb'` and remove the secret from the cell; check the repository history.") {
			t.Errorf("human %+v", h)
		}
		if facts.Artifact == &a && (!strings.Contains(h.What, "7c0ffee1d2b3") || !strings.Contains(h.What, "cell 3 output 1 line 2 (gcp-service-account-key)") || strings.Contains(h.What, "0123456789ab")) {
			t.Errorf("human %q: want the key id and where each secret is, no hash", h.What)
		}
	}
	// A notebook's URI names no source: its path below the source's root.
	if got := inferArtifact(model.Finding{RuleID: "BF022", ArtifactURI: "notebooks:///bf-1234/fix%20refunds.ipynb"}); got == nil ||
		got.Kind != model.KindNotebook || got.Name != "bf-1234/fix refunds.ipynb" {
		t.Errorf("notebooks:/// inferred %+v", got)
	}
	if got := inferArtifact(model.Finding{ArtifactURI: "notebooks://nb/"}); got != nil && got.Kind == model.KindNotebook {
		t.Errorf("a URI without a path inferred %+v", got)
	}
}
