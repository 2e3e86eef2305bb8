package builtin

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF018", Name: "guard-flag-in-replay-position", Title: "Side-effect guard flag still in its replay position",
		Rationale: "Side effects (customer e-mails, invoices, alerts) are disabled for historical intervals, and teams do that with a flag. " +
			"Left in its replay position after the replay, the flag keeps production from sending what it should: customers get no e-mail, invoices are not issued. On financial or customer-visible data it is critical.",
		Practice:    rules.PracticeRunSafely,
		Kinds:       []model.Kind{model.KindFeatureFlag},
		Remediation: "Put the flag back in its normal position now (side effects on) and check that the job sends again; then remove the flag (rule BF017 gives the command).",
		Severity:    model.SeverityHigh, Step: model.StepNormalized,
		Ladder: upRung(model.SeverityHigh, "while a guard is still in its replay position after the replay",
			"on customer-visible data: financial or customer"),
		// The guard's lingering (BF017) is the same flag and the same fix,
		// after the by-hand check this rule asks for.
		Supersedes: []rules.Supersede{{Rule: "BF017", As: "lingering flag"}, foldsUndeclared},
		Params:     []rules.Param{{Name: "grace", Default: "1d", Description: "time after completion before a guard still in its replay position is reported"}},
		Check:      guardFlagInReplayPosition,
		Remedy: &remedy.Recipe{Build: remedy.RestoreGuard, Kind: model.KindFeatureFlag,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("flag")}},
	})
}

// guardName matches flag names that say they hold side effects back:
// suppress-emails, skip_invoices, mute-alerts, disable-notifications,
// side-effects-off.
var guardName = regexp.MustCompile(`(?i)(suppress|mute|disable|skip|block|pause|hold|stop|no)[-_.]?(customer[-_.]?)?(e-?mails?|notifications?|notify|invoic(es?|ing)|alerts?|webhooks?|sms|messages?|payouts?|side[-_.]?effects?)|side[-_.]?effects?`)

// guardFlagInReplayPosition flags a side-effect guard still where the
// replay put it once every backfill it names is over (a guard two
// backfills share still holds side effects back for the one replaying).
// A flag is a guard when its system marks it so (a tag, metadata), when a
// plan's side_effects names it, or when its name says so. Its replay
// position is what its system recorded (compared with its position: a
// variant, "enabled"), else "on": a guard is switched on to hold side
// effects back. A financial or customer-visible backfill among them makes
// it critical.
func guardFlagInReplayPosition(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		bs := c.Index.BackfillsOf(a).Backfills
		why := ""
		for _, sb := range bs {
			if why = guardReason(sb, a); why != "" {
				break
			}
		}
		if why == "" {
			return
		}
		now, replay := flagPosition(a), a.Attr(model.AttrReplayPosition)
		if replay == "" {
			// Not recorded: a guard is switched on to hold side effects
			// back, so on is the replay's position, whatever the system
			// calls its positions (a flagd variant "on", "true").
			replay, now = string(model.StateEnabled), onOff(a)
		}
		if !strings.EqualFold(now, replay) {
			return
		}
		over, when := lingers(c, a, grace)
		if !over {
			return
		}
		ev := append([]string{why, fmt.Sprintf("position %s, the replay's position %s", now, replay), stateNote(a)}, when...)
		sensitive := false
		for _, sb := range bs {
			if visibleData(sb) {
				sensitive = true
				ev = append(ev, classifiedNote(sb))
			}
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Severity: up(sensitive, model.SeverityHigh), Evidence: ev,
			Message: fmt.Sprintf("side-effect guard %s of %s is still %s, as for the replay: production's side effects stay held back", nameOr(a), backfillNames(bs), now)})
	})
}

// guardReason says why a flag counts as a side-effect guard, or "".
func guardReason(b *model.Backfill, a *model.Artifact) string {
	for _, s := range b.SideEffects {
		if strings.EqualFold(s, a.Name) || s == a.URI {
			return fmt.Sprintf("the plan's side_effects names %s", s)
		}
	}
	switch {
	case a.BoolAttr(model.AttrGuard):
		return fmt.Sprintf("source %q marks it as a side-effect guard", a.Source)
	case guardName.MatchString(a.Name):
		return fmt.Sprintf("its name %s says it holds side effects back", a.Name)
	}
	return ""
}

// flagPosition is a flag's position as its system reports it (a variant,
// "enabled"), else whether it is on.
func flagPosition(a *model.Artifact) string {
	if p := a.Attr(model.AttrPosition); p != "" {
		return p
	}
	return onOff(a)
}

// onOff is "enabled" for a flag that is on, "disabled" otherwise.
func onOff(a *model.Artifact) string {
	if a.State == model.StateEnabled || a.State == model.StateActive {
		return string(model.StateEnabled)
	}
	return string(model.StateDisabled)
}
