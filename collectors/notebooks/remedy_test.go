package notebooks

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
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
	// BF014 on the notebook as collected (its secrets known) and BF022's
	// remedy (asked at the access step) from the finding alone.
	for _, c := range []struct {
		facts remedy.Facts
		step  model.Step
	}{{remedy.Facts{Artifact: &a}, model.StepRetired}, {remedy.Facts{Artifact: remedy.InferArtifact(f)}, model.StepAccessRevoked}} {
		facts := c.facts
		r, ok := remedy.BuildWith(remedy.Remove(c.step), f, facts)
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
	// An AWS key pair: its id is not shown (the hash names it), so the act
	// says how to find the key's user from the id in the cell and deactivate it.
	a.SetAttr(model.AttrAWSKeys, "0123456789ab")
	r, _ := remedy.BuildWith(remedy.Remove(model.StepAccessRevoked), f, remedy.Facts{Artifact: &a})
	if r.Human == nil || !strings.Contains(r.Human.What, "aws iam get-access-key-last-used --access-key-id ID") ||
		!strings.Contains(r.Human.What, "--status Inactive") || strings.Contains(r.Human.What, "0123456789ab") {
		t.Errorf("human for an AWS key pair: %+v", r.Human)
	}
	// A notebook's URI names no source: its path below the source's root.
	if got := remedy.InferArtifact(model.Finding{RuleID: "BF022", ArtifactURI: "notebooks:///bf-1234/fix%20refunds.ipynb"}); got == nil ||
		got.Kind != model.KindNotebook || got.Name != "bf-1234/fix refunds.ipynb" {
		t.Errorf("notebooks:/// inferred %+v", got)
	}
	if got := remedy.InferArtifact(model.Finding{ArtifactURI: "notebooks://nb/"}); got != nil && got.Kind == model.KindNotebook {
		t.Errorf("a URI without a path inferred %+v", got)
	}
}

// A notebook known to keep no credential (BF023's lingering notebook,
// kept as the fix's evidence) is archived with the record or deleted: its
// remedy, at the rule's step, says nothing of a key to rotate, whether the
// artifact was collected or read back from the finding's URI.
func TestLingeringNotebookHasNoKeyToRotate(t *testing.T) {
	uri := "notebooks:///bf-1234/fix%20refunds.ipynb"
	a := model.Artifact{Kind: model.KindNotebook, System: "notebooks", URI: uri, Name: "bf-1234/fix refunds.ipynb"}
	f := model.Finding{RuleID: "BF023", BackfillID: "BF-1234", ArtifactURI: uri}
	for _, facts := range []remedy.Facts{{Artifact: &a}, {Artifact: remedy.InferArtifact(f)}} {
		r, ok := remedy.BuildWith(remedy.Remove(model.StepRetired), f, facts)
		if !ok || r.Human == nil {
			t.Fatalf("remedy %+v", r)
		}
		h := r.Human
		if h.Step != model.StepRetired || strings.Contains(strings.ToLower(h.What), "rotate") || strings.Contains(h.What, "secret") ||
			!strings.HasPrefix(h.What, "Move the notebook next to the decision record, its outputs cleared with `jupyter nbconvert --clear-output --inplace 'bf-1234/fix refunds.ipynb'`, or delete it") {
			t.Errorf("lingering notebook: %+v", h)
		}
	}
}
