package builtin_test

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/rules"
)

func runCases(t *testing.T, cases []ruleCase) {
	for _, tc := range cases {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			when := tc.now
			if when.IsZero() {
				when = now
			}
			var opts rules.Options
			if tc.opts != nil {
				opts = tc.opts(t)
			}
			all := evaluate(t, tc.build(), when, opts)
			got := ofRule(all, tc.rule)
			if len(got) != tc.want {
				var msgs []string
				for _, f := range all {
					msgs = append(msgs, f.RuleID+" "+f.Message)
				}
				t.Fatalf("%s raised %d findings, want %d; all findings:\n  %s", tc.rule, len(got), tc.want, strings.Join(msgs, "\n  "))
			}
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

func TestRulesFire(t *testing.T) { runCases(t, firing) }

func TestRulesStayQuiet(t *testing.T) { runCases(t, quiet) }

// TestEveryRuleIsTested fails when a registered rule lacks metadata, a
// firing case or a quiet case.
func TestEveryRuleIsTested(t *testing.T) {
	fires, quiets := map[string]bool{}, map[string]bool{}
	for _, c := range firing {
		if c.want > 0 {
			fires[c.rule] = true
		}
	}
	for _, c := range quiet {
		if c.want != 0 {
			t.Errorf("quiet case %s/%s expects findings", c.rule, c.name)
		}
		quiets[c.rule] = true
	}
	all := rules.All()
	if len(all) < 29 {
		t.Errorf("%d rules registered, want the whole catalogue (BF001-BF015, BF101-BF111, BF900-BF902)", len(all))
	}
	for _, r := range all {
		if err := r.Validate(); err != nil {
			t.Error(err)
		}
		if rules.PracticeTitles[r.Practice] == "" {
			t.Errorf("%s cites no section of docs/practice.md: %q", r.ID, r.Practice)
		}
		if !fires[r.ID] {
			t.Errorf("%s has no firing case", r.ID)
		}
		if !quiets[r.ID] {
			t.Errorf("%s has no quiet case", r.ID)
		}
	}
}
