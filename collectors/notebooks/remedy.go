package notebooks

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// A notebook has no command: one that keeps a credential has its key
// rotated where it was issued, then is cleaned by hand; one without is
// moved next to the decision record or deleted by hand. There is no fix
// --apply for either.
func init() {
	remedy.RegisterSystem("notebooks", remedy.System{Examples: examples, Manual: notebookManual, Infer: inferNotebook})
}

// notebookManual says what to do with a notebook by hand. One that keeps
// a credential (the collector found a secret or a key id in it, or the
// rule asks at the access-revoked step, as BF022 does about the
// credential) is fixed at the access-revoked step whatever the rule's
// step: the key works until it is revoked, wherever else it was copied.
// One known to keep none (BF023's lingering notebook) is evidence to
// archive with the decision record or machinery to delete: nothing to
// rotate.
func notebookManual(a *model.Artifact, step model.Step) *remedy.Human {
	file := a.NameOrURI()
	clear := "`jupyter nbconvert --clear-output --inplace " + remedy.Quote(file) + "`"
	if a.Attr(model.AttrSecrets) == "" && a.Attr(model.AttrKeyIDs) == "" && step != model.StepAccessRevoked {
		return &remedy.Human{Step: step, Where: a.URI,
			What: "Move the notebook next to the decision record, its outputs cleared with " + clear +
				", or delete it: once the backfill is done it is not left where it can be run again."}
	}
	what := "Rotate the key first (it is live until revoked), then clear the outputs with " + clear +
		" and remove the secret from the cell; check the repository history."
	if ids := a.Attr(model.AttrKeyIDs); ids != "" {
		what += fmt.Sprintf(" Service-account key id(s) to delete: %s.", strings.ReplaceAll(ids, ",", ", "))
	}
	if a.Attr(model.AttrAWSKeys) != "" {
		what += " For an AWS key pair, take the access key id from the cell it is in, find its user with `aws iam get-access-key-last-used --access-key-id ID`," +
			" then `aws iam update-access-key --user-name USER --access-key-id ID --status Inactive` and, once nothing breaks, `aws iam delete-access-key`."
	}
	if s := a.Attr(model.AttrSecrets); s != "" {
		var where []string
		for _, line := range strings.Split(s, "\n") {
			if f := strings.Split(line, "\t"); len(f) == 3 {
				where = append(where, f[1]+" ("+f[0]+")")
			}
		}
		if len(where) > 0 {
			what += " Found at: " + strings.Join(where, "; ") + "."
		}
	}
	return &remedy.Human{Step: model.StepAccessRevoked, Where: a.URI, What: what}
}

// inferNotebook: a notebook's URI names its path.
func inferNotebook(a *model.Artifact) {
	if path, ok := parseURI(a.URI); ok {
		a.Kind, a.Name = model.KindNotebook, path
	}
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"notebook-key": {Kind: model.KindNotebook, System: "notebooks", Source: "analytics", State: model.StateActive,
		URI: "notebooks:///bf_1234_refund_fix.ipynb", Name: "corrections/bf_1234_refund_fix.ipynb",
		Attributes: model.Attrs(model.AttrSecrets, "gcp-service-account-key\tcell 2 output 1 stdout line 4\t3f9a1c0d2b7e", model.AttrKeyIDs, "8a1f0c2d9e")},
	"notebook": {Kind: model.KindNotebook, System: "notebooks", Source: "analytics", State: model.StateActive,
		URI: "notebooks:///bf_1234_refund_fix.ipynb", Name: "corrections/bf_1234_refund_fix.ipynb"},
}
