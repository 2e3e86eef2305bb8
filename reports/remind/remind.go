// Package remind tells owners about their findings' due dates, each step
// at most once per finding (docs/reports/due.md): a reminder remind_before
// the due date (a comment on the backfill's issue and a Slack direct
// message), to an owner told of the finding at least notice_days before;
// the overdue mark at the due date (the GitHub sink's overdue label;
// recorded here); and an escalation escalate_after it (the team's Slack
// channel, or its lead directly, and a comment naming the lead).
//
// One message per recipient per run: a run's reminders and escalations
// about one backfill are one comment on its issue, an owner's reminders
// one direct message, a team's escalations one message, each listing its
// findings.
//
// Once is kept three ways: the history store's notices say what was done
// (a step recorded for a finding and channel is not looked at again), and
// each send is itself once (Slack's SendOnce, GitHub's CommentOnce), keyed
// by the recipient and the set of findings it tells of; the notices are
// recorded after the send, so a run killed between the two sends the same
// set again on its rerun, finds it there and only records.
package remind

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
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
	r := &runner{Input: in, now: in.Report.Now, users: map[string]string{}}
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
	var owed []step
	for _, f := range in.Report.Findings {
		if f.Waived() || f.Fingerprint == "" {
			continue
		}
		owed = append(owed, r.finding(ctx, f, notices[f.Fingerprint])...)
	}
	r.sendGitHub(ctx, owed)
	r.sendReminders(ctx, owed)
	r.sendEscalations(ctx, owed)
	return r.res, errors.Join(r.errs...)
}

type runner struct {
	Input
	now   time.Time
	res   Result
	users map[string]string // e-mail -> Slack user id
	errs  []error
}

// step is one notice a finding is owed on one channel this run.
type step struct {
	f       model.Finding
	stage   string // history.StageReminder, StageEscalation
	channel string
	issue   int // the backfill's issue in step this run, 0 when none
	// since is when the step fell due: a comment of it is looked for from then.
	since time.Time
	// owner is the finding's owner and contact their entry in the owners
	// map; team and lead name the owner's team (escalations).
	owner     string
	contact   model.Contact
	team      string
	lead      string
	leadTo    model.Contact
	channelTo string // the team's channel
}

func ownerOf(f model.Finding) string { return f.Owner }

// finding records the notices that need no message (listed, overdue) and
// returns the steps owed a message this run.
func (r *runner) finding(ctx context.Context, f model.Finding, ns []history.Notice) []step {
	done := map[string]bool{}
	var told time.Time // when the owner was first told of it
	for _, n := range ns {
		done[n.Stage+"/"+n.Channel] = true
		if told.IsZero() || n.SentAt.Before(told) {
			told = n.SentAt
		}
	}
	issue := r.issue(f)
	owner := ownerOf(f)
	// Listed: the finding is in its owner's issue, now in step.
	if issue > 0 && !done[history.StageListed+"/"+ChannelGitHub] {
		if r.record(ctx, f, history.StageListed, ChannelGitHub, owner) && told.IsZero() {
			told = r.now
		}
	}
	if f.DueAt.IsZero() || owner == "" {
		return nil
	}
	contact, _ := r.Owners.Lookup(owner)
	base := step{f: f, issue: issue, owner: owner, contact: contact}
	var out []step
	owe := func(stage, channel string, since time.Time, s step) {
		if !done[stage+"/"+channel] {
			s.stage, s.channel, s.since = stage, channel, since
			out = append(out, s)
		}
	}
	remindAt := f.DueAt.Add(-r.Policy.RemindBefore)
	switch {
	case !r.now.Before(f.DueAt):
		// The GitHub sink labelled the issue overdue and assigned the owner
		// in this run's sync: recorded once the issue is in step.
		if issue > 0 && !done[history.StageOverdue+"/"+ChannelGitHub] {
			r.record(ctx, f, history.StageOverdue, ChannelGitHub, orOwner(contact.GitHub, owner))
		}
	case r.Policy.RemindBefore > 0 && !r.now.Before(remindAt) && r.toldEnough(told):
		if issue > 0 && r.GitHub != nil {
			owe(history.StageReminder, ChannelGitHub, remindAt, base)
		}
		if r.Slack != nil && contact.Email != "" {
			owe(history.StageReminder, ChannelSlack, remindAt, base)
		}
	}
	escalateAt := f.DueAt.Add(r.Policy.EscalateAfter)
	if r.Policy.EscalateAfter <= 0 || r.now.Before(escalateAt) {
		return out
	}
	name, team, ok := r.Teams.Of(owner)
	if !ok {
		return out // no team: the overdue label and the assignment are what there is (docs/reports/due.md)
	}
	lead, _ := r.Owners.Lookup(team.Lead)
	if lead.Email == "" && strings.Contains(team.Lead, "@") {
		lead.Email = team.Lead
	}
	e := base
	e.team, e.lead, e.leadTo, e.channelTo = name, team.Lead, lead, team.Channel
	if r.Slack != nil && (team.Channel != "" || lead.Email != "") {
		owe(history.StageEscalation, ChannelSlack, escalateAt, e)
	}
	if issue > 0 && r.GitHub != nil {
		owe(history.StageEscalation, ChannelGitHub, escalateAt, e)
	}
	return out
}

// toldEnough reports whether an owner first told at told (zero: never)
// was told at least notice_days ago: a reminder follows a first notice, it
// does not come seconds after it.
func (r *runner) toldEnough(told time.Time) bool {
	return !told.IsZero() && !r.now.Before(told.Add(time.Duration(r.Policy.NoticeDays)*due.Day))
}

// record stores a notice and counts it; false when it failed or was there.
func (r *runner) record(ctx context.Context, f model.Finding, stage, channel, recipient string) bool {
	stored, err := r.Store.RecordNotice(ctx, history.Notice{Fingerprint: f.Fingerprint, Stage: stage, Channel: channel, Recipient: recipient, SentAt: r.now})
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("reminders: %s (%s): %s by %s: %w", f.Fingerprint, f.BackfillID, stage, channel, err))
		return false
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
	return stored
}

// sent records each step of a batch once its message is in.
func (r *runner) sent(ctx context.Context, batch []step, recipient func(step) string) {
	for _, s := range batch {
		r.record(ctx, s.f, s.stage, s.channel, recipient(s))
	}
}

// groups splits the steps that keep(s) into batches by key, in key order.
func groups[K cmp.Ordered](steps []step, keep func(step) bool, key func(step) K) [][]step {
	by := map[K][]step{}
	for _, s := range steps {
		if keep(s) {
			by[key(s)] = append(by[key(s)], s)
		}
	}
	keys := make([]K, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([][]step, 0, len(keys))
	for _, k := range keys {
		out = append(out, by[k])
	}
	return out
}

// batchKey names a message by its recipient, its kind and the findings it
// tells of: a rerun after a crash between the send and the notices sends
// the same set, and finds it.
func batchKey(recipient, kind string, batch []step) string {
	parts := []string{recipient}
	for _, s := range batch {
		parts = append(parts, s.f.Fingerprint+"/"+s.stage)
	}
	slices.Sort(parts[1:])
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:8]) + ":" + kind
}

// stopped reports a cancelled run, once per batch it skips.
func (r *runner) stopped(ctx context.Context) bool {
	if err := ctx.Err(); err != nil {
		r.errs = append(r.errs, fmt.Errorf("reminders: stopped: %w", err))
		return true
	}
	return false
}

// sendGitHub comments once on each issue owed a reminder or an
// escalation: one comment listing both.
func (r *runner) sendGitHub(ctx context.Context, owed []step) {
	onGitHub := func(s step) bool { return s.channel == ChannelGitHub }
	for _, batch := range groups(owed, onGitHub, func(s step) int { return s.issue }) {
		if r.stopped(ctx) {
			return
		}
		issue := batch[0].issue
		kind := kindOf(batch)
		since := slices.MinFunc(batch, func(a, b step) int { return a.since.Compare(b.since) }).since
		_, err := r.GitHub.CommentOnce(ctx, issue, kind, batchKey("issue "+strconv.Itoa(issue), kind, batch), issueComment(batch, r.now), since)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("reminders: issue #%d (%s): %s comment: %w", issue, batch[0].f.BackfillID, kind, err))
			continue
		}
		r.sent(ctx, batch, func(s step) string {
			if s.stage == history.StageEscalation {
				return orOwner(s.leadTo.GitHub, s.lead)
			}
			return orOwner(s.contact.GitHub, s.owner)
		})
	}
}

// kindOf names a comment by the stages it holds.
func kindOf(batch []step) string {
	var r, e bool
	for _, s := range batch {
		r, e = r || s.stage == history.StageReminder, e || s.stage == history.StageEscalation
	}
	switch {
	case r && e:
		return "reminder+escalation"
	case e:
		return "escalation"
	}
	return "reminder"
}

// sendReminders sends each owner one direct message listing their
// findings due soon.
func (r *runner) sendReminders(ctx context.Context, owed []step) {
	keep := func(s step) bool { return s.channel == ChannelSlack && s.stage == history.StageReminder }
	for _, batch := range groups(owed, keep, func(s step) string { return strings.ToLower(s.contact.Email) }) {
		if r.stopped(ctx) {
			return
		}
		email := batch[0].contact.Email
		id, err := r.user(ctx, email)
		if err == nil {
			_, err = r.Slack.SendOnce(ctx, Event, batchKey("dm "+strings.ToLower(email), "reminder", batch), id, slackReminder(batch, r.now), nil)
		}
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("reminders: reminder to %s by slack: %w", batch[0].owner, err))
			continue
		}
		r.sent(ctx, batch, func(s step) string { return s.owner })
	}
}

// sendEscalations tells each team once: its channel, or its lead
// directly, listing its members' findings past due.
func (r *runner) sendEscalations(ctx context.Context, owed []step) {
	keep := func(s step) bool { return s.channel == ChannelSlack && s.stage == history.StageEscalation }
	for _, batch := range groups(owed, keep, func(s step) string { return s.team }) {
		if r.stopped(ctx) {
			return
		}
		first := batch[0]
		to := first.channelTo
		var err error
		if to == "" {
			to, err = r.user(ctx, first.leadTo.Email)
		}
		if err == nil {
			_, err = r.Slack.SendOnce(ctx, Event, batchKey("team "+first.team, "escalation", batch), to, slackEscalation(batch, r.now), nil)
		}
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("reminders: escalation to team %s by slack: %w", first.team, err))
			continue
		}
		r.sent(ctx, batch, func(s step) string { return orOwner(s.channelTo, s.lead) })
	}
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
