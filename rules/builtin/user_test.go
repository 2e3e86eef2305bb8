package builtin_test

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// The three examples of docs/rules/cel.md, run against estates where each
// fires and one where none does.
var docExamples = []rules.UserRuleSpec{
	{ID: "ACME001", Title: "Backfill table holds no rows", Severity: model.SeverityLow, AppliesTo: rules.AppliesToArtifact,
		Remediation: "Drop the empty table; the replay wrote elsewhere.",
		Expr:        `artifact.kind == "table" && has(artifact.backfill_id) && artifact.attributes.exists(k, k == "rows") && artifact.attributes["rows"] == "0"`},
	{ID: "ACME002", Title: "Financial backfill replayed without a named approver", Severity: model.SeverityHigh, AppliesTo: rules.AppliesToBackfill,
		Remediation: "Name the approver in the plan (approver:) before the record is archived.",
		Expr:        `backfill.classification == "financial" && backfill.approver == "" && backfill.status in ["replayed", "verified", "archived", "retired"]`},
	{ID: "ACME003", Title: "Backfill job older than 30 days and still scheduled", Severity: model.SeverityMedium, AppliesTo: rules.AppliesToArtifact,
		Remediation: "Delete the job or convert it into a runbook entry.",
		Expr: `artifact.kind == "scheduler_job" && artifact.state == "enabled" && has(backfill.id) &&
  has(artifact.created_at) && now - artifact.created_at > duration("720h") && !has(record.archived_at)`},
}

func TestUserRuleExamples(t *testing.T) {
	bad := func() *estate {
		return newEstate().
			plan(completed, func(b *model.Backfill) { b.Classification = model.ClassFinancial; b.Approver = "" }).
			artifact(table(), attr(model.AttrRows, "0")).
			artifact(job(model.StateEnabled), func(a *model.Artifact) { a.CreatedAt = model.At(done.AddDate(0, 0, -40)) })
	}
	good := func() *estate {
		return newEstate().plan(completed).record(fullRecord("BF-1")).
			artifact(table(), attr(model.AttrRows, "12")).
			artifact(job(model.StateEnabled), func(a *model.Artifact) { a.CreatedAt = model.At(done.AddDate(0, 0, -40)) })
	}
	opts := userRules(t, docExamples...)
	fs := evaluate(t, bad(), now, opts)
	for _, id := range []string{"ACME001", "ACME002", "ACME003"} {
		got := ofRule(fs, id)
		if len(got) != 1 {
			t.Errorf("%s: %d findings on the bad estate, want 1", id, len(got))
			continue
		}
		if got[0].BackfillID != "BF-1" || got[0].Owner != "alice@example.com" {
			t.Errorf("%s finding not tied to BF-1 and its owner: %+v", id, got[0])
		}
	}
	if n := len(ofRule(fs, rules.UserRuleErrorID)); n != 0 {
		t.Errorf("examples raised %d run-time errors", n)
	}
	fs = evaluate(t, good(), now, userRules(t, docExamples...))
	for _, id := range []string{"ACME001", "ACME002", "ACME003", rules.UserRuleErrorID} {
		if n := len(ofRule(fs, id)); n != 0 {
			t.Errorf("%s: %d findings on the good estate", id, n)
		}
	}
}

func TestUserRuleOverridesAndDisable(t *testing.T) {
	est := func() *estate { return newEstate().plan(completed).artifact(table(), attr(model.AttrRows, "0")) }
	opts := userRules(t, acme1)
	opts.Severity = map[string]model.Severity{"acme1": model.SeverityCritical}
	got := ofRule(evaluate(t, est(), now, opts), "ACME1")
	if len(got) != 1 || got[0].Severity != model.SeverityCritical {
		t.Errorf("severity override on a user rule: %+v", got)
	}
	opts = userRules(t, acme1)
	opts.Disabled = []string{"ACME1"}
	if got := ofRule(evaluate(t, est(), now, opts), "ACME1"); len(got) != 0 {
		t.Errorf("disabled user rule still fired: %d", len(got))
	}
	opts = userRules(t, acme1)
	opts.Disabled = []string{"BF005"}
	opts.Severity = map[string]model.Severity{"BF006": model.SeverityHigh}
	fs := evaluate(t, est(), now, opts)
	if n := len(ofRule(fs, "BF005")); n != 0 {
		t.Errorf("disabled BF005 fired")
	}
}

func TestUserRuleIDClashesWithBuiltin(t *testing.T) {
	_, err := rules.CompileUserRules([]rules.UserRuleSpec{{ID: "BF005", Title: "t", Severity: model.SeverityLow, Remediation: "r", AppliesTo: "artifact", Expr: "true"}})
	if err == nil {
		t.Error("a user rule may not take a built-in id")
	}
}

// Governance findings point at the offending key when the engine is given
// the plan's key lines.
func TestPlanFindingsPointAtKey(t *testing.T) {
	lines := map[string]int{"write_mode": 17, "elevated_access[0]": 21, "elevated_access[0].expiry": 0}
	opts := rules.Options{KeyLines: func(loc model.Location, key string) int {
		if loc.Path != "plans/BF-1.yaml" || loc.Line != 1 {
			return 0
		}
		return lines[key]
	}}
	fs := evaluate(t, newEstate().plan(func(b *model.Backfill) {
		b.WriteMode = model.WriteAppend
		b.ElevatedAccess = []model.ElevatedAccess{{Principal: "user:x"}}
	}), now, opts)
	for id, want := range map[string]int{"BF107": 17, "BF102": 21} {
		got := ofRule(fs, id)
		if len(got) != 1 || got[0].Location == nil || got[0].Location.Line != want || got[0].Location.Path != "plans/BF-1.yaml" {
			t.Errorf("%s location: %+v, want plans/BF-1.yaml:%d", id, got, want)
		}
	}
}
