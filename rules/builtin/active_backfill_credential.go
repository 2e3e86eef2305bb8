package builtin

import (
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF004", Name: "active-backfill-credential", Title: "Credential made for a backfill is still valid",
		Rationale: "Service-account keys and login roles created for a replay are elevated access: the practice revokes them once audit and exports are complete, " +
			"as the third step of closing the loop, because a correction notebook that keeps credentials long after the data was fixed is a standing way in.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindCredential},
		Remediation: "Delete the service-account key or drop the login role (or set NOLOGIN / VALID UNTIL in the past); give future backfill credentials an expiry when they are created.",
		Severity:    model.SeverityHigh, Ladder: accessLadder("a credential"),
		Supersedes: []rules.Supersede{foldsNotTimeBound, foldsUndeclared},
		Step:       model.StepAccessRevoked,
		Params:     []rules.Param{{Name: "grace", Default: "2d", Description: "time after completion before a backfill credential counts as lingering"}},
		Check:      activeBackfillCredential,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepAccessRevoked), Kind: model.KindCredential,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("pg-role"), remedy.ExampleOn("gcp-key")}},
	})
}

// activeBackfillCredential flags keys and login roles tied to a completed
// backfill that can still be used. A role that cannot log in is not a
// credential, and one whose validity already ended cannot be used.
func activeBackfillCredential(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if _, ok := a.Attributes.Lookup(model.AttrLogin); ok && !a.BoolAttr(model.AttrLogin) {
			return
		}
		until := a.ExpiresAt
		if until.IsZero() {
			until = model.At(a.TimeAttr(model.AttrValidUntil))
		}
		if c.Past(until.Time()) {
			return
		}
		over, why := c.GraceOver(b, grace)
		if !over {
			if !c.Past(b.Expiry) {
				return
			}
			why = fmt.Sprintf("backfill %s expired %s", b.ID, day(b.Expiry))
		}
		validity := "with no expiry"
		if !until.IsZero() {
			validity = "until " + day(until)
		}
		ev := []string{stateNote(a), why, "valid " + validity}
		if end := b.Timeline.CompletedAt; !end.IsZero() && a.LastUsedAt.Time().After(end) {
			// Still in use: someone or something kept the backfill's
			// access, and revoking it will be noticed.
			ev = append(ev, fmt.Sprintf("last used %s, after the backfill completed %s", day(a.LastUsedAt), day(end)))
		}
		if b.Classification.Classified() {
			ev = append(ev, classifiedNote(b))
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Severity: accessSeverity(b), Evidence: ev,
			Message: fmt.Sprintf("credential %s is still valid %s: %s", nameOr(a), validity, why)})
	})
}
