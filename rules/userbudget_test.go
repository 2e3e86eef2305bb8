package rules

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

func spec(id, expr string) UserRuleSpec {
	return UserRuleSpec{ID: id, Title: id + " fired", Severity: model.SeverityLow, Remediation: "r", AppliesTo: AppliesToArtifact, Expr: expr}
}

// costlyEstate has n tables whose names are long enough for a nested loop
// over their characters to cost millions of steps.
func costlyEstate(n int) *correlate.Index {
	est := &model.Estate{Version: model.EstateVersion}
	for i := range n {
		est.Artifacts = append(est.Artifacts, model.Artifact{
			Kind: model.KindTable, System: "bigquery", Source: "wh", URI: fmt.Sprintf("bq://p/d/t%d", i),
			Name: strings.Repeat("a", 300),
		})
	}
	sel, err := correlate.NewSelector(correlate.DefaultLabelKeys, correlate.DefaultNamePatterns)
	if err != nil {
		panic(err)
	}
	return correlate.Correlate(est, sel)
}

// evaluateWithin runs the engine and fails the test if it has not returned
// within a generous deadline: before the limits, these expressions ran for
// minutes or ended the process out of memory.
func evaluateWithin(t *testing.T, eng *Engine, ix *correlate.Index) []model.Finding {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan []model.Finding, 1)
	go func() { done <- eng.Evaluate(ix, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)) }()
	select {
	case fs := <-done:
		return fs
	case <-ctx.Done():
		t.Fatal("evaluation did not finish: a user rule has no effective limit")
		return nil
	}
}

func byRule(fs []model.Finding, id string) []model.Finding {
	var out []model.Finding
	for _, f := range fs {
		if f.RuleID == id {
			out = append(out, f)
		}
	}
	return out
}

func TestUserRuleOverBudgetIsBF902(t *testing.T) {
	chars := `artifact.name.split("")`
	tests := []struct {
		name, expr, want string
	}{
		// Three nested loops over 300 characters: 27 million steps per
		// table, for every table.
		{"nested map", chars + `.map(a, ` + chars + `.map(b, ` + chars + `.map(c, c))).size() > 0`, "over its evaluation budget"},
		// Each replace multiplies the name's length by 300: 9e4, 2.7e7,
		// 8.1e9 bytes.
		{"allocating replace", `artifact.name.replace("a", artifact.name).replace("a", artifact.name).replace("a", artifact.name).size() > 0`, "over its evaluation budget"},
		// Lists of lists of strings: 27 million strings held at once.
		{"allocating map", chars + `.map(a, ` + chars + `.map(b, ` + chars + `.map(c, artifact.name + c))).size() > 0`, "over its evaluation budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, err := CompileUserRules([]UserRuleSpec{spec("COSTLY", tt.expr), spec("PLAIN", `artifact.kind == "table"`)})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			eng, err := New(Options{User: user})
			if err != nil {
				t.Fatal(err)
			}
			fs := evaluateWithin(t, eng, costlyEstate(40))
			errs := byRule(fs, UserRuleErrorID)
			if len(errs) != 1 || errs[0].ArtifactURI != "rule:COSTLY" {
				t.Fatalf("want one BF902 for COSTLY, got %+v", errs)
			}
			msg := errs[0].Message
			for _, w := range []string{tt.want, "stopped after 3 evaluations over their limits", "37 object(s) not checked"} {
				if !strings.Contains(msg, w) {
					t.Errorf("BF902 message %q lacks %q", msg, w)
				}
			}
			if n := len(byRule(fs, "PLAIN")); n != 40 {
				t.Errorf("the other rule fired %d times, want 40: one costly rule must not stop the rest", n)
			}
			if n := len(byRule(fs, "COSTLY")); n != 0 {
				t.Errorf("the costly rule fired %d times", n)
			}
		})
	}
}

func TestUserRuleBudgetSpent(t *testing.T) {
	limits := DefaultUserLimits
	limits.RuleBudget = time.Nanosecond
	user, err := compileUserRules([]UserRuleSpec{spec("SLOW", `artifact.kind == "table"`)}, limits)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(Options{User: user})
	if err != nil {
		t.Fatal(err)
	}
	fs := evaluateWithin(t, eng, costlyEstate(5))
	errs := byRule(fs, UserRuleErrorID)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "spent its whole evaluation budget of 1ns") || !strings.Contains(errs[0].Message, "4 object(s) not checked") {
		t.Fatalf("want one BF902 saying the budget is spent, got %+v", errs)
	}
}

func TestUserRuleEvalTimeout(t *testing.T) {
	limits := DefaultUserLimits
	limits.EvalCost = 1 << 62 // only the deadline can stop it
	limits.EvalMemory = 1 << 31
	limits.EvalTimeout = 10 * time.Millisecond
	chars := `artifact.name.split("")`
	user, err := compileUserRules([]UserRuleSpec{spec("LOOP", chars+`.all(a, `+chars+`.all(b, `+chars+`.all(c, `+chars+`.all(d, true))))`)}, limits)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(Options{User: user})
	if err != nil {
		t.Fatal(err)
	}
	fs := evaluateWithin(t, eng, costlyEstate(10))
	errs := byRule(fs, UserRuleErrorID)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "took longer than 10ms") {
		t.Fatalf("want one BF902 for the deadline, got %+v", errs)
	}
}

func TestUserRuleCostRefusedAtLoad(t *testing.T) {
	ten := "[1,2,3,4,5,6,7,8,9,10]"
	nested := "x"
	for _, v := range []string{"f", "e", "d", "c", "b", "a"} {
		nested = ten + ".map(" + v + ", " + nested + ")"
	}
	nested = strings.Replace(nested, ", x)", ", a)", 1)
	_, err := CompileUserRules([]UserRuleSpec{spec("HUGE", "artifact.name.size() + "+nested+".size() > 0")})
	if err == nil {
		t.Fatal("an expression costing 10^6 iterations on every object was accepted")
	}
	for _, w := range []string{"rules.custom[0] (HUGE).expr", "column 50", "costs at least", "over the limit of 1000000"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	long := strings.Repeat("true && ", 2000) + "true"
	if _, err := CompileUserRules([]UserRuleSpec{spec("LONG", long)}); err == nil || !strings.Contains(err.Error(), "over the limit of 10000") {
		t.Errorf("a 16 kB expression: %v", err)
	}
}

// The cost check must not refuse ordinary rules, whose upper cost is
// unknown because the model's lists, maps and strings have no fixed size.
func TestUserRuleCostAcceptsOrdinaryRules(t *testing.T) {
	for _, expr := range []string{
		`artifact.kind == "table" && has(artifact.backfill_id) && artifact.attributes.exists(k, k == "rows") && artifact.attributes["rows"] == "0"`,
		`artifact.labels.all(k, artifact.labels.exists(j, j == k || j.startsWith(k)))`,
		`artifact.name.split("_").exists(p, p.lowerAscii() == "tmp") && artifact.name.matches("^bf_[0-9]+")`,
		`backfill.assets_to_remove.exists(a, a == artifact.uri) || backfill.elevated_access.exists(e, e.principal == artifact.attributes["principal"])`,
		`[1,2,3].map(x, x * 2).filter(y, y > 2).size() == 2 && "abc".contains("b")`,
		`has(artifact.created_at) && now - artifact.created_at > duration("720h") && !has(record.archived_at)`,
	} {
		if _, err := CompileUserRules([]UserRuleSpec{spec("OK1", expr)}); err != nil {
			t.Errorf("%s: %v", expr, err)
		}
	}
}
