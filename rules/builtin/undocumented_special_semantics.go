package builtin

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF109", Name: "undocumented-special-semantics", Title: "Special replay semantics without a note",
		Rationale:   "If the backfill skipped deduplication, bypassed normal validation, or wrote directly to a warehouse table, cleanup should include a note explaining why that path must not become the new normal.",
		Practice:    rules.PracticeSensitive,
		Remediation: "Add special_semantics.note to the plan: why the shortcut was needed and why it must not become the normal path.",
		Severity:    model.SeverityMedium, Step: model.StepPlan, Governance: true,
		Check:  undocumentedSpecialSemantics,
		Remedy: &remedy.Recipe{Build: remedy.UndocumentedSpecialSemantics, Examples: []remedy.ExampleOf{remedy.ExamplePlan}},
	})
}

func undocumentedSpecialSemantics(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		s := b.Special
		if !s.Any() || strings.TrimSpace(s.Note) != "" {
			return
		}
		var used []string
		if s.SkippedDedup {
			used = append(used, "skipped deduplication")
		}
		if s.BypassedValidation {
			used = append(used, "bypassed validation")
		}
		if s.DirectWrite {
			used = append(used, "wrote directly to the warehouse")
		}
		c.Report(rules.Issue{Backfill: b, Location: c.PlanAt(b, "special_semantics.note", "special_semantics"),
			Message:  fmt.Sprintf("plan for %s %s with no note explaining why", b.ID, joinAnd(used)),
			Evidence: []string{"special_semantics: " + joinAnd(used), "special_semantics.note: empty"}})
	})
}
