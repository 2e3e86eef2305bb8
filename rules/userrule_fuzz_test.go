package rules

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// FuzzCompileUserRule: compiling any expression (bounded by MaxExprLength)
// neither panics nor hangs, and an error names the rule and its key.
func FuzzCompileUserRule(f *testing.F) {
	for _, s := range []string{
		`artifact.kind == "table" && artifact.attributes.exists(k, k == "rows")`,
		`has(artifact.expires_at) && now > artifact.expires_at`,
		`backfill.status in ["replayed", "verified"] && backfill.assets_to_remove.exists(a, a == artifact.uri)`,
		`artifact.name.split("").map(a, artifact.name.split("").map(b, b)).size() > 0`,
		`[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].map(f, f)))))).size() > 0`,
		`artifact.ownr == ""`,
		`artifact.name`,
		strings.Repeat("(", 300) + "true" + strings.Repeat(")", 300),
		strings.Repeat("!", 1000) + "true",
		`"\u0000" == artifact.name`,
		`int("9223372036854775808") > 0`,
		`duration("` + strings.Repeat("9", 40) + `h") > duration("1h")`,
		"artifact.kind == \"table\" &&\n  nope",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		s := UserRuleSpec{ID: "FUZZ1", Title: "t", Severity: model.SeverityLow, Remediation: "r", AppliesTo: AppliesToArtifact, Expr: expr}
		rs, err := CompileUserRules([]UserRuleSpec{s})
		if err != nil {
			if !strings.Contains(err.Error(), "rules.custom[0] (FUZZ1).expr") {
				t.Fatalf("error %q does not name the rule's key", err)
			}
			return
		}
		if len(rs) != 1 || !rs[0].User() {
			t.Fatalf("compiled %d rules", len(rs))
		}
	})
}
