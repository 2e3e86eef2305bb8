package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF102", Name: "access-not-time-bound", Title: "Elevated access without an expiry",
		Rationale: "If the replay needs elevated permissions, make those permissions time-bound by default: access that ends by itself cannot linger when cleanup is forgotten. " +
			"This flags a plan's elevated access with no expiry, and backfill grants with no time condition (an IAM binding without request.time < timestamp(...), a role without VALID UNTIL).",
		Practice:    rules.PracticePlan,
		Kinds:       []model.Kind{model.KindGrant, model.KindCredential},
		Remediation: "Give every elevated_access entry an expiry in the plan, and grant it with an end: an IAM condition such as request.time < timestamp(\"2026-03-01T00:00:00Z\"), or VALID UNTIL on a login role.",
		Severity:    model.SeverityHigh, Step: model.StepPlan, Governance: true,
		Check: accessNotTimeBound,
		Remedy: &remedy.Recipe{Build: remedy.NotTimeBound, Kind: model.KindGrant,
			Examples: []remedy.ExampleOf{remedy.ExamplePlan, remedy.ExampleOn("pg-role"), remedy.ExampleOn("gcp-binding")}},
	})
}

func accessNotTimeBound(c *rules.Context) {
	plans(c.Index, func(b *model.Backfill) {
		for i, e := range b.ElevatedAccess {
			if !e.Expiry.IsZero() {
				continue
			}
			key := fmt.Sprintf("elevated_access[%d]", i)
			c.Report(rules.Issue{Backfill: b, Part: key, Location: c.PlanAt(b, key+".expiry", key, "elevated_access"),
				Message:  fmt.Sprintf("plan for %s grants %s to %s with no expiry", b.ID, orAny(e.Role), e.Principal),
				Evidence: []string{key + ": no expiry"}})
		}
	})
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if why := unbounded(a); why != "" {
			c.Report(rules.Issue{Backfill: b, Artifact: a,
				Message:  fmt.Sprintf("%s %s of %s is not time-bound: %s", a.Kind, grantName(a), b.ID, why),
				Evidence: []string{stateNote(a), why}})
		}
	})
}

// unbounded says why a grant has no end, or "" when it has one or nothing
// is known. A collector that read the condition sets time_bound; without
// it the condition is read here, and one that cannot be read counts as no
// bound (the finding says so) rather than as a safe grant.
func unbounded(a *model.Artifact) string {
	if a.Kind == model.KindCredential {
		if _, ok := a.Attributes.Lookup(model.AttrLogin); ok && !a.BoolAttr(model.AttrLogin) {
			return ""
		}
	}
	if _, bounded, err := grantExpiry(a); bounded {
		return ""
	} else if err != nil {
		return fmt.Sprintf("its condition cannot be read (%v)", err)
	}
	cond := a.Attr(model.AttrCondition)
	switch {
	case cond != "":
		return fmt.Sprintf("its condition %q puts no upper bound on request.time", cond)
	case a.Attr(model.AttrTimeBound) == "false":
		return "no expiry condition"
	}
	return ""
}

func orAny(s string) string {
	if s == "" {
		return "access"
	}
	return s
}
