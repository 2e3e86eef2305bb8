package remind

import (
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/reports/github"
	"github.com/bfaudit/bfaudit/reports/history"
	bfslack "github.com/bfaudit/bfaudit/reports/slack"
)

// These messages are sent once, so unlike an issue body they may say how
// much time is left ("due in 2d"). Every piece of estate text (owners,
// backfill ids, artifact names, titles) goes through the sink's one
// neutraliser: GitHub's for comments, Slack's for messages; team names
// and leads come from the config, and are neutralised too.

// maxListed caps the findings one message lists, inside both sinks'
// length limits; the rest are counted.
const maxListed = 50

// neutral is one sink's way with estate text.
type neutral struct {
	text, code func(string) string
	bullet     string
}

var (
	onGitHub = neutral{text: github.Text, code: github.Code, bullet: "- "}
	onSlack  = neutral{text: bfslack.Escape, bullet: "• ", code: func(s string) string {
		return "`" + strings.ReplaceAll(bfslack.Escape(s), "`", "'") + "`"
	}}
)

// where says what an item line names besides the finding.
type where struct{ backfill, owner bool }

// line is one finding of a message: rule, severity, title, artifact, and
// as asked its backfill and owner, then its due date and the time left.
func (n neutral) line(f model.Finding, w where, now time.Time) string {
	var b strings.Builder
	b.WriteString(n.bullet + n.text(f.RuleID))
	if s := f.Severity.String(); s != "" {
		b.WriteString(" (" + s + ")")
	}
	b.WriteString(" " + n.text(f.Title))
	if f.ArtifactURI != "" {
		b.WriteString(": " + n.code(f.ArtifactURI))
	}
	if w.backfill {
		if f.BackfillID == "" {
			b.WriteString(" · no backfill")
		} else {
			b.WriteString(" · backfill " + n.code(f.BackfillID))
		}
	}
	if w.owner && f.Owner != "" {
		b.WriteString(" · owner " + n.text(f.Owner))
	}
	if now.Before(f.DueAt) {
		fmt.Fprintf(&b, " · due %s (%s)", due.Date(f.DueAt), due.Left(f, now))
	} else {
		fmt.Fprintf(&b, " · was due %s (%s)", due.Date(f.DueAt), due.Left(f, now))
	}
	return b.String()
}

// list is the lines of a batch's findings, at most maxListed.
func (n neutral) list(batch []step, w where, now time.Time) string {
	var lines []string
	for i, s := range batch {
		if i == maxListed {
			lines = append(lines, fmt.Sprintf("%sand %d more", n.bullet, len(batch)-maxListed))
			break
		}
		lines = append(lines, n.line(s.f, w, now))
	}
	return strings.Join(lines, "\n")
}

func findings(n int) string {
	if n == 1 {
		return "1 finding"
	}
	return fmt.Sprintf("%d findings", n)
}

// issueComment is the one comment a run writes on a backfill's issue: the
// reminders, mentioning their owners, then the escalations, mentioning
// the team leads.
func issueComment(batch []step, now time.Time) string {
	var rem, esc []step
	for _, s := range batch {
		if s.stage == history.StageEscalation {
			esc = append(esc, s)
		} else {
			rem = append(rem, s)
		}
	}
	var parts []string
	if len(rem) > 0 {
		parts = append(parts, fmt.Sprintf("%sReminder: %s of this backfill %s due soon. Close each, or waive it with a reason, before its due date:\n\n%s",
			mentions(rem, func(s step) string { return s.contact.GitHub }), findings(len(rem)), isAre(len(rem)),
			onGitHub.list(rem, where{owner: true}, now)))
	}
	for _, team := range groups(esc, func(step) bool { return true }, func(s step) string { return s.team }) {
		t := team[0]
		parts = append(parts, fmt.Sprintf("%sEscalation to team %s (lead %s): %s of this backfill %s past due and still open:\n\n%s",
			mentions(team, func(s step) string { return s.leadTo.GitHub }), onGitHub.text(t.team), onGitHub.text(t.lead),
			findings(len(team)), isAre(len(team)), onGitHub.list(team, where{owner: true}, now)))
	}
	return strings.Join(parts, "\n\n")
}

// mentions is "@a @b " for the distinct GitHub logins of a batch: logins
// from the owners map, mentioned on purpose.
func mentions(batch []step, login func(step) string) string {
	var out []string
	for _, s := range batch {
		if l := login(s); l != "" && !containsFold(out, "@"+l) {
			out = append(out, "@"+l)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, " ") + " "
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// slackReminder is an owner's one direct message of a run's reminders.
func slackReminder(batch []step, now time.Time) string {
	return fmt.Sprintf("Reminder: %s of yours %s due soon. Close each, or waive it with a reason, before its due date:\n%s",
		findings(len(batch)), isAre(len(batch)), onSlack.list(batch, where{backfill: true}, now))
}

// slackEscalation is a team's one message of a run's escalations.
func slackEscalation(batch []step, now time.Time) string {
	t := batch[0]
	return fmt.Sprintf("Escalation to team %s (lead %s): %s of the team %s past due and still open:\n%s",
		onSlack.text(t.team), onSlack.text(t.lead), findings(len(batch)), isAre(len(batch)),
		onSlack.list(batch, where{backfill: true, owner: true}, now))
}
