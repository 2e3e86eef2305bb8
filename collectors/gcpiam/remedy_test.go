package gcpiam

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
	// A conditional binding is removed with its exact condition, handed to
	// gcloud as a file: commas, quotes and '=' in it stay.
)

func TestConditionalBindingFile(t *testing.T) {
	expr := `request.time < timestamp("2026-10-01T00:00:00Z") && resource.name.startsWith("projects/_/buckets/a,b")`
	for _, title := range []string{"bf-1234 until october", "it's, \"quoted\" = x\nline"} {
		a := model.Artifact{Kind: model.KindGrant, System: "gcpiam", URI: "gcpiam://p/bindings/r/m?condition=x",
			Attributes: model.Attrs(model.AttrPrincipal, "user:a@b.c", model.AttrRole, "roles/x", model.AttrCondition, expr, AttrConditionTitle, title)}
		r, _ := remedy.BuildWith(remedy.Remove(model.StepAccessRevoked), model.Finding{}, remedy.Facts{Artifact: &a})
		calls := remedytest.RunShell(t, r.Actions[0].Shell)
		if len(calls) != 1 {
			t.Fatalf("calls %+v", calls)
		}
		var cond map[string]string
		if err := json.Unmarshal([]byte(calls[0].Stdin), &cond); err != nil {
			t.Fatalf("condition file %q: %v", calls[0].Stdin, err)
		}
		if cond["expression"] != expr || cond["title"] != title || len(cond) != 2 {
			t.Errorf("condition file = %q", cond)
		}
		if !slices.ContainsFunc(calls[0].Args, func(s string) bool { return strings.HasPrefix(s, "--condition-from-file=") }) {
			t.Errorf("args %q", calls[0].Args)
		}
	}
}
