package builtin

import (
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF003", Name: "lingering-elevated-grant", Title: "Elevated grant still in force after the backfill",
		Rationale: "Elevated access given for a replay (warehouse grants, IAM bindings, dataset ACLs) must be removed with the other temporary write paths; " +
			"the practice revokes it before the decision record is archived.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindGrant},
		Remediation: "Revoke the grant or binding; for future backfills make elevated access time-bound (an IAM condition on request.time, VALID UNTIL).",
		Severity:    model.SeverityHigh, Ladder: accessLadder("a grant"),
		Supersedes: []rules.Supersede{foldsNotTimeBound, foldsUndeclared},
		Step:       model.StepAccessRevoked,
		Params:     []rules.Param{{Name: "grace", Default: "2d", Description: "time after completion before a backfill grant counts as lingering"}},
		Check:      lingeringElevatedGrant,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepAccessRevoked), Kind: model.KindGrant,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("pg-grant"), remedy.ExampleOn("gcp-binding"), remedy.ExampleOn("bq-acl")}},
	})
}

func lingeringElevatedGrant(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		var why string
		if exp, _, _ := grantExpiry(a); c.Past(exp) {
			why = fmt.Sprintf("its expiry %s has passed but the grant is still there", exp.UTC().Format("2006-01-02 15:04 MST"))
		} else if exp := planExpiry(b, a); c.Past(exp) {
			why = fmt.Sprintf("the plan's elevated access expired %s", day(exp))
		} else if over, ev := c.GraceOver(b, grace); over {
			why = ev
		} else {
			return
		}
		msg := fmt.Sprintf("grant %s is still in force", grantName(a))
		ev := []string{stateNote(a), why}
		if b.Classification.Classified() {
			ev = append(ev, fmt.Sprintf("backfill touches %s data", b.Classification))
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Message: msg + ": " + why, Evidence: ev, Severity: accessSeverity(b)})
	})
}

// planExpiry is the expiry the plan declared for this grant's principal.
func planExpiry(b *model.Backfill, a *model.Artifact) time.Time {
	p := a.Attr(model.AttrPrincipal)
	for _, e := range b.ElevatedAccess {
		if p != "" && e.Principal == p && !e.Expiry.IsZero() {
			return e.Expiry
		}
	}
	return time.Time{}
}

func grantName(a *model.Artifact) string {
	p, r := a.Attr(model.AttrPrincipal), a.Attr(model.AttrRole)
	switch {
	case p != "" && r != "":
		return fmt.Sprintf("%s to %s", r, p)
	case a.Name != "":
		return a.Name
	}
	return a.URI
}
