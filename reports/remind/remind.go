// Package remind tells owners about their findings' due dates, each step
// at most once per finding (docs/reports/due.md): a reminder remind_before
// the due date (a comment on the backfill's issue and a Slack direct
// message), the overdue mark at the due date (the GitHub sink's overdue
// label; recorded here), and an escalation escalate_after it (the team's
// Slack channel, or its lead directly, and a comment naming the lead).
//
// Once is kept three ways: the history store's notices say what was done
// (a step recorded for a channel is not looked at again), and each send is
// itself once (Slack's SendOnce, GitHub's CommentOnce), so a run killed
// between a send and its notice finds the message there and only records.
package remind

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/reports/history"
	bfslack "github.com/bfaudit/bfaudit/reports/slack"
	"github.com/slack-go/slack"
)

// Store is what of the history store reminders use.
type Store interface {
	NoticesOf(ctx context.Context, fps []string) (map[string][]history.Notice, error)
	RecordNotice(ctx context.Context, n history.Notice) (bool, error)
}

// GitHub comments once on an issue (github.Sink).
type GitHub interface {
	CommentOnce(ctx context.Context, number int, kind, key, body string, since time.Time) (bool, error)
}

// Slack sends once (slack.Sink).
type Slack interface {
	SendOnce(ctx context.Context, event, key, channel, text string, blocks []slack.Block) (bfslack.Delivery, error)
	LookupUser(ctx context.Context, email string) (string, error)
}

// Channels of a notice.
const (
	ChannelGitHub = "github"
	ChannelSlack  = "slack"
)

// Event is the Slack metadata event type of reminders and escalations.
const Event = "bfaudit_due"

// Input is one run's reminders.
type Input struct {
	Report *model.Report
	Policy due.Policy
	Owners model.Owners
	Teams  model.Teams
	Store  Store
	// GitHub and Slack are nil when that sink is not configured.
	GitHub GitHub
	Slack  Slack
	// Issues maps a backfill id, as the report spells it, to its issue
	// URL (github.Result.IssueURLs); NotSynced lists the backfills whose
	// issue is not in step this run (github.Result.NotSynced).
	Issues    map[string]string
	NotSynced []string
}

// Result counts what one run did: notices recorded by stage.
type Result struct {
	Listed, Reminded, Overdue, Escalated int
}

// Run sends what is due at the report's time. Every failure is returned
// (joined); the rest still runs, and the next run tries what failed again.
func Run(ctx context.Context, in Input) (Result, error) {
	r := &runner{Input: in, now: in.Report.Now, users: map[string]string{}, done: map[string]map[string]bool{}}
	if r.now.IsZero() {
		r.now = time.Now().UTC()
	}
	var fps []string
	for _, f := range in.Report.Findings {
		if !f.Waived() && f.Fingerprint != "" {
			fps = append(fps, f.Fingerprint)
		}
	}
	notices, err := in.Store.NoticesOf(ctx, fps)
	if err != nil {
		return r.res, fmt.Errorf("reminders: %w", err)
	}
	var errs []error
	for _, f := range in.Report.Findings {
		if ctx.Err() != nil {
			errs = append(errs, fmt.Errorf("reminders: stopped: %w", ctx.Err()))
			break
		}
		if f.Waived() || f.Fingerprint == "" {
			continue
		}
		if err := r.finding(ctx, f, notices[f.Fingerprint]); err != nil {
			errs = append(errs, fmt.Errorf("reminders: %s (%s): %w", f.Fingerprint, f.BackfillID, err))
		}
	}
	return r.res, errors.Join(errs...)
}

type runner struct {
	Input
	now   time.Time
	res   Result
	users map[string]string          // e-mail -> Slack user id
	done  map[string]map[string]bool // fingerprint -> stage/channel recorded
}

func ownerOf(f model.Finding) string { return f.Owner }

// finding takes one finding through the steps due at now.
func (r *runner) finding(ctx context.Context, f model.Finding, ns []history.Notice) error {
	done := map[string]bool{}
	for _, n := range ns {
		done[n.Stage+"/"+n.Channel] = true
	}
	issue := r.issue(f)
	owner := ownerOf(f)
	var errs []error
	step := func(stage, channel, recipient string, send func() error) {
		if done[stage+"/"+channel] {
			return
		}
		if err := send(); err != nil {
			errs = append(errs, fmt.Errorf("%s by %s: %w", stage, channel, err))
			return
		}
		stored, err := r.Store.RecordNotice(ctx, history.Notice{Fingerprint: f.Fingerprint, Stage: stage, Channel: channel, Recipient: recipient, SentAt: r.now})
		if err != nil {
			errs = append(errs, err)
			return
		}
		if stored {
			switch stage {
			case history.StageListed:
				r.res.Listed++
			case history.StageReminder:
				r.res.Reminded++
			case history.StageOverdue:
				r.res.Overdue++
			case history.StageEscalation:
				r.res.Escalated++
			}
		}
	}
	nothing := func() error { return nil }
	// Listed: the finding is in its owner's issue, now in step.
	if issue > 0 {
		step(history.StageListed, ChannelGitHub, owner, nothing)
	}
	if f.DueAt.IsZero() || owner == "" {
		return errors.Join(errs...)
	}
	contact, _ := r.Owners.Lookup(owner)
	remindAt := f.DueAt.Add(-r.Policy.RemindBefore)
	escalateAt := f.DueAt.Add(r.Policy.EscalateAfter)
	switch {
	case !r.now.Before(f.DueAt):
		// The GitHub sink labelled the issue overdue and assigned the owner
		// in this run's sync: recorded once the issue is in step.
		if issue > 0 {
			step(history.StageOverdue, ChannelGitHub, orOwner(contact.GitHub, owner), nothing)
		}
	case r.Policy.RemindBefore > 0 && !r.now.Before(remindAt):
		text := reminderText(f, owner, r.now)
		if issue > 0 && r.GitHub != nil {
			step(history.StageReminder, ChannelGitHub, orOwner(contact.GitHub, owner), func() error {
				_, err := r.GitHub.CommentOnce(ctx, issue, "reminder", f.Fingerprint+":reminder", mention(contact.GitHub)+text, remindAt)
				return err
			})
		}
		if r.Slack != nil && contact.Email != "" {
			step(history.StageReminder, ChannelSlack, owner, func() error {
				id, err := r.user(ctx, contact.Email)
				if err != nil {
					return err
				}
				_, err = r.Slack.SendOnce(ctx, Event, f.Fingerprint+":reminder", id, text, nil)
				return err
			})
		}
	}
	if r.Policy.EscalateAfter > 0 && !r.now.Before(escalateAt) {
		errs = append(errs, r.escalate(ctx, f, owner, issue, escalateAt, step))
	}
	return errors.Join(errs...)
}

// escalate tells the owner's team: its channel, or its lead directly, and
// the issue, naming the lead.
func (r *runner) escalate(ctx context.Context, f model.Finding, owner string, issue int, since time.Time, step func(stage, channel, recipient string, send func() error)) error {
	name, team, ok := r.Teams.Of(owner)
	if !ok {
		return nil // no team: the overdue label and the assignment are what there is (docs/reports/due.md)
	}
	lead, _ := r.Owners.Lookup(team.Lead)
	if lead.Email == "" && strings.Contains(team.Lead, "@") {
		lead.Email = team.Lead
	}
	text := escalationText(f, owner, name, team.Lead, r.now)
	if r.Slack != nil && (team.Channel != "" || lead.Email != "") {
		to := team.Channel
		step(history.StageEscalation, ChannelSlack, orOwner(team.Channel, team.Lead), func() error {
			if to == "" {
				id, err := r.user(ctx, lead.Email)
				if err != nil {
					return err
				}
				to = id
			}
			_, err := r.Slack.SendOnce(ctx, Event, f.Fingerprint+":escalation", to, text, nil)
			return err
		})
	}
	if issue > 0 && r.GitHub != nil {
		step(history.StageEscalation, ChannelGitHub, orOwner(lead.GitHub, team.Lead), func() error {
			_, err := r.GitHub.CommentOnce(ctx, issue, "escalation", f.Fingerprint+":escalation", mention(lead.GitHub)+text, since)
			return err
		})
	}
	return nil
}

// user resolves an e-mail to a Slack user id, once a run.
func (r *runner) user(ctx context.Context, email string) (string, error) {
	if id, ok := r.users[strings.ToLower(email)]; ok {
		return id, nil
	}
	id, err := r.Slack.LookupUser(ctx, email)
	if err != nil {
		return "", err
	}
	r.users[strings.ToLower(email)] = id
	return id, nil
}

// issue is the number of the finding's backfill issue when it is in step
// this run, 0 otherwise.
func (r *runner) issue(f model.Finding) int {
	for _, id := range r.NotSynced {
		if id == f.BackfillID {
			return 0
		}
	}
	u := r.Issues[f.BackfillID]
	i := strings.LastIndex(u, "/issues/")
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(u[i+len("/issues/"):])
	if err != nil {
		return 0
	}
	return n
}

func orOwner(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func mention(login string) string {
	if login == "" {
		return ""
	}
	return "@" + login + " "
}
