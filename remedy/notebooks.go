package remedy

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// A notebook that keeps a credential has no command: the key is rotated
// where it was issued, then the notebook cleaned by hand. There is no
// fix --apply for it.
func init() {
	registerSystem("notebooks", commands{manual: notebookManual, infer: inferNotebook})
}

// notebookManual says what to do with a notebook holding a credential, at
// the access-revoked step whatever the rule's step: the key works until
// it is revoked, wherever else it was copied.
func notebookManual(a *model.Artifact, _ model.Step) *Human {
	file := nameOr(a)
	what := "Rotate the key first (it is live until revoked), then clear the outputs with `jupyter nbconvert --clear-output --inplace " +
		Quote(file) + "` and remove the secret from the cell; check the repository history."
	if ids := a.Attr(model.AttrKeyIDs); ids != "" {
		what += fmt.Sprintf(" Service-account key id(s) to delete: %s.", strings.ReplaceAll(ids, ",", ", "))
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
	return &Human{Step: model.StepAccessRevoked, Where: a.URI, What: what}
}

// inferNotebook: a notebook's URI is notebooks:///<path below its root>
// (older estates: notebooks://<source>/<path>, whose source is dropped).
func inferNotebook(a *model.Artifact) {
	if segs, ok := segments(a.URI, "notebooks"); ok && len(segs) > 0 && segs[len(segs)-1] != "" {
		a.Kind, a.Name = model.KindNotebook, strings.Join(segs, "/")
	}
}
