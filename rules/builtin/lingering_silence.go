package builtin

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF016", Name: "lingering-silence", Title: "Alertmanager silence made for the backfill outlives it",
		Rationale: "A backfill that replays months of data mutes the production alerts it would trip. Returning the pipeline to its normal alerting is the second step of closing the loop; " +
			"a silence still active after the replay, or set to end long after the backfill's expiry, is a production alert nobody will hear.",
		Practice: rules.PracticeCloseTheLoop,
		Kinds:    []model.Kind{model.KindSilence},
		Remediation: "Expire the silence: `amtool silence expire <id>` (the finding's evidence has the exact command, with the Alertmanager's address), " +
			"or DELETE /api/v2/silence/<id>. For the next backfill, give the silence an end inside the plan's window.",
		Severity: model.SeverityHigh, Ladder: upRung(model.SeverityHigh, "while a silence made for a backfill still mutes alerts after it",
			`when the silence mutes a severity="critical" alert (its matchers select one, or Alertmanager holds one it mutes)`),
		Step:       model.StepNormalized,
		Supersedes: []rules.Supersede{foldsUndeclared},
		Params: []rules.Param{
			{Name: "grace", Default: "2d", Description: "time after completion before a silence still active counts as lingering"},
			{Name: "max_overrun", Default: "7d", Description: "how long after the backfill's expiry a silence may be set to end"},
		},
		Check: lingeringSilence,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepNormalized), Kind: model.KindSilence,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("silence")}},
	})
}

// lingeringSilence flags, once the replays of every backfill a silence
// names have finished, each such silence that is still active after the
// grace (from the last to complete), or set to end more than max_overrun
// after the latest of their expiries (a pending one included: it will
// mute alerts then). Before then BF112 judges them. A silence naming a
// backfill nothing describes is never concluded over (served.go).
func lingeringSilence(c *rules.Context) {
	grace, overrun := c.Duration("grace"), c.Duration("max_overrun")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if !allCompleted(c, a) {
			return
		}
		bs := c.Index.BackfillsOf(a).Backfills
		var why string
		var ev []string
		if a.State == model.StateActive {
			if over, lines := lingers(c, a, grace); over {
				why = "still active: " + lines[len(lines)-1]
				ev = lines[:len(lines)-1]
			}
		}
		if exp, ok := latestExpiry(bs); why == "" && ok && a.ExpiresAt.Time().After(exp.Add(overrun)) {
			whose := "the backfill's expiry"
			if len(bs) > 1 {
				whose = "the latest expiry of its backfills,"
			}
			why = fmt.Sprintf("set to end %s after %s %s (more than %s)", span(a.ExpiresAt.Time().Sub(exp)), whose, day(exp.UTC()), span(overrun))
			ev = servesNote(bs)
		}
		if why == "" {
			return
		}
		crit := a.BoolAttr(model.AttrMutesCritical)
		ev = append(append(silenceEvidence(a), ev...), why)
		if crit {
			ev = append(ev, `it mutes a severity="critical" alert`)
		}
		ev = append(ev, "expire it: "+expireCommand(a))
		c.Report(rules.Issue{Backfill: b, Artifact: a, Severity: up(crit, model.SeverityHigh), Evidence: ev,
			Message: fmt.Sprintf("%s still mutes %s after %s: %s", describeSilence(a), orAnyAlert(a), backfillNames(bs), why)})
	})
}

// latestExpiry is the latest of the backfills' plan expiries, the end of
// the window a silence serving them all may need; false when one of them
// has no expiry (no window to judge against).
func latestExpiry(bs []*model.Backfill) (time.Time, bool) {
	var last time.Time
	for _, b := range bs {
		if b.Expiry.IsZero() {
			return time.Time{}, false
		}
		if b.Expiry.After(last) {
			last = b.Expiry
		}
	}
	return last, !last.IsZero()
}

// describeSilence names a silence the way its owner will look it up: id,
// creator, end.
func describeSilence(a *model.Artifact) string {
	s := "silence " + nameOr(a)
	var parts []string
	if by := a.Attr(model.AttrCreatedBy); by != "" {
		parts = append(parts, "created by "+by)
	}
	if !a.ExpiresAt.IsZero() {
		parts = append(parts, "ends "+stampUTC(a.ExpiresAt.Time()))
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

func silenceEvidence(a *model.Artifact) []string {
	ev := []string{stateNote(a)}
	if m := a.Attr(model.AttrMatchers); m != "" {
		ev = append(ev, "matchers "+m)
	}
	return ev
}

func orAnyAlert(a *model.Artifact) string {
	if m := a.Attr(model.AttrMatchers); m != "" {
		return "alerts matching " + m
	}
	return "alerts"
}

// span prints a duration in whole days from two days up, so evidence
// reads "ends 120d after"; shorter spans keep hours and minutes.
func span(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
	return d.Round(time.Minute).String()
}

func stampUTC(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 MST") }

// expireCommand is the amtool command that expires the silence, its
// arguments quoted for a POSIX shell (ids and addresses come from a
// server and are not trusted to be plain).
func expireCommand(a *model.Artifact) string {
	cmd := "amtool"
	if u := a.Attr(model.AttrAPIURL); u != "" {
		cmd += " --alertmanager.url=" + shellQuote(u)
	}
	return cmd + " silence expire " + shellQuote(a.Name)
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
