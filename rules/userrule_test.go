package rules

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

func TestCompileUserRulesErrors(t *testing.T) {
	ok := UserRuleSpec{ID: "ACME1", Title: "t", Severity: model.SeverityLow, Remediation: "r", AppliesTo: AppliesToArtifact, Expr: `artifact.kind == "table"`}
	tests := []struct {
		name string
		mod  func(*UserRuleSpec)
		want []string // substrings of the error
	}{
		{"misspelt field", func(s *UserRuleSpec) { s.Expr = `artifact.kind == "table" && artifact.ownr == ""` }, []string{"rules.custom[0] (ACME1).expr", "column 37", "ownr"}},
		{"syntax error", func(s *UserRuleSpec) { s.Expr = `artifact.kind == ` }, []string{"(ACME1).expr", "column"}},
		{"second line", func(s *UserRuleSpec) { s.Expr = "artifact.kind == \"table\" &&\n  nope" }, []string{"line 2, column 3", "nope"}},
		{"not a bool", func(s *UserRuleSpec) { s.Expr = `artifact.name` }, []string{"(ACME1).expr", "returns string, want bool"}},
		{"unknown scope", func(s *UserRuleSpec) { s.AppliesTo = "table" }, []string{"(ACME1).applies_to", "artifact or backfill"}},
		{"no id", func(s *UserRuleSpec) { s.ID = "" }, []string{"rules.custom[0].id", "missing"}},
		{"no severity", func(s *UserRuleSpec) { s.Severity = 0 }, []string{"(ACME1).severity"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			tt.mod(&s)
			_, err := CompileUserRules([]UserRuleSpec{s})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	if _, err := CompileUserRules([]UserRuleSpec{ok, ok}); err == nil || !strings.Contains(err.Error(), "rules.custom[1] (ACME1).id") {
		t.Errorf("duplicate id: %v", err)
	}
	rs, err := CompileUserRules([]UserRuleSpec{ok})
	if err != nil || len(rs) != 1 || !rs[0].User() || rs[0].Name != "acme1" {
		t.Errorf("valid rule: %v %+v", err, rs)
	}
}
