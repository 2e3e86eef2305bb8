package github

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	gh "github.com/google/go-github/v60/github"
)

// draft is a backfill's issue as this run would write it, worked out from
// the report and the issue as listed, before any call: the checklist
// merged, the marker and the rendered title and body. Sync drafts each
// listed issue while the next page of the listing is on its way
// (listIssues), so that an issue that does not change costs no time
// after the listing; syncOne drafts the others itself.
type draft struct {
	id        string // the backfill, as the issue spells it when there is one
	prev      marker // the issue's marker, zero without an issue
	described model.Location
	m         merged
	// unreadDesc names the unit describing the backfill when it did not
	// answer: an existing issue is then kept as it was (keepStale).
	unreadDesc []string
	// judge says the issue was closed with the waiver label and lists
	// items it could accept: who did it is asked of GitHub before the
	// rest is worked out (compose).
	judge        bool
	labelled     bool
	owner, login string
	assigned     bool
	mk           marker
	title, body  string
	err          error // rendering's
}

// errCalls is compose's answer when a draft needs the clock.
var errCalls = errors.New("the issue's state changes")

// plan drafts w's issue as of now, short of what needs a call; clock is
// the sink's, nil when the draft is made ahead (while the listing is
// read), where a draft whose issue changes state (a close or reopen owes
// a comment timed by the clock) is not made: it needs writes anyway, so
// nothing is gained by drafting it early. It returns nil then.
func (s *Sink) plan(r *model.Report, w *work, now time.Time, clock func() time.Time) *draft {
	d := &draft{id: w.id}
	if w.issue != nil {
		d.prev = w.issue.marker
		d.id = d.prev.Backfill // keep the issue's spelling: no churn between sources
	}
	ans := model.AnswersOf(r.Coverage)
	d.described = describedBy(d.prev, w.report, ans)
	d.m = mergeItems(d.prev.Items, w.findings, ans, d.described, w.report)
	d.m.expire(now, s.cfg.acceptDays())
	if w.issue == nil && !blocking(d.m.items) {
		return d // nothing open and nothing filed: no issue needed
	}
	if d.described.Source != "" && !ans.Answered(d.described.Source, d.described.Path) {
		d.unreadDesc = []string{model.Unit(d.described.Source, d.described.Path)}
		if w.issue != nil {
			return d // kept as it is
		}
	}
	// A person closed the issue with the waiver label: who and when is
	// asked of GitHub, once, while something listed is still to be
	// accepted.
	d.labelled = w.issue != nil && !w.issue.open && w.issue.hasLabel(s.cfg.WaiverLabel)
	if d.labelled && len(d.m.acceptable()) > 0 {
		d.judge = true
		return d
	}
	if err := s.compose(d, w, now, clock); err != nil {
		return nil
	}
	return d
}

// compose works out the rest of the draft from its merged checklist: the
// assignee, the marker and the rendered title and body. It fails only
// without a clock, on an issue whose state changes (see plan).
func (s *Sink) compose(d *draft, w *work, now time.Time, clock func() time.Time) error {
	d.owner, d.login = s.assignee(w)
	// The body says the login is assigned when it is, or is asked for now;
	// a login GitHub refused before (the marker remembers it) is not asked
	// for again, and the body says so.
	d.assigned = w.issue == nil || slices.Contains(w.issue.assignees, d.login) || d.login != d.prev.Assignee
	d.mk = marker{Backfill: d.id, Assignee: d.login, Items: d.m.items, Described: d.described}
	// A state change records the comment it owes in the marker it writes,
	// so that a run dying before the comment leaves it to the next.
	if kind := owes(w, d.m); kind != "" {
		if clock == nil {
			return errCalls
		}
		d.mk.Pending = transition(kind, d.m, s.commentSettings(), now, clock())
	}
	d.title, d.body, d.err = s.renderAs(d, w, now, d.assigned)
	return nil
}

// renderAs renders the draft's title and body, saying the login is
// assigned or not.
func (s *Sink) renderAs(d *draft, w *work, now time.Time, assigned bool) (title, body string, err error) {
	v, err := view(d.id, now, w.report, d.owner, d.login, assigned, s.cfg.WaiverLabel, s.cfg.acceptDays(), d.m.items, unreadUnits(d.m.items, d.unreadDesc), d.mk)
	if err != nil {
		return "", "", err
	}
	return s.render.render(v)
}

// syncOne brings one backfill's issue in step. Writes are ordered so that
// an interruption loses at most a comment, never duplicates one: the state
// change comes first, the comment after (a re-run sees the new state and
// has nothing left to say).
func (s *Sink) syncOne(ctx context.Context, r *model.Report, w *work, now time.Time, res *Result) error {
	if is := w.issue; is != nil && is.marker.Pending != nil {
		// A run died between a state change and its comment.
		if err := s.settle(ctx, is, is.marker.Pending, is.marker.Backfill, res); err != nil {
			return err
		}
	}
	var d *draft
	if w.issue != nil {
		d = w.issue.draft
	}
	if d == nil {
		d = s.plan(r, w, now, s.now)
	}
	id, prev, m := d.id, d.prev, &d.m
	if w.issue == nil && !blocking(m.items) {
		return nil // nothing open and nothing filed: no issue needed
	}
	if d.unreadDesc != nil && w.issue != nil {
		s.noteWaived(res, w, m.items)
		return s.keepStale(ctx, w, d.unreadDesc, now, res)
	}
	if d.judge {
		v, err := s.judgeLabel(ctx, w.issue)
		if err != nil {
			res.IssueURLs[w.id] = w.issue.url
			s.noteWaived(res, w, m.items)
			return fmt.Errorf("github: issue #%d for %s was closed with the label %q, but %w; "+
				"what it would accept is not waived this run, and the issue is left as it is", w.issue.number, id, s.cfg.WaiverLabel, err)
		}
		m.accept(v, now, s.cfg.acceptDays(), s.cfg.maxSeverity())
		_ = s.compose(d, w, now, s.now) // with a clock, it cannot fail
	}
	if d.err != nil {
		return d.err
	}
	labelled, login, mk, title, body := d.labelled, d.login, d.mk, d.title, d.body
	// unassigned re-renders the body when GitHub refuses the login.
	unassigned := func() (string, error) { _, b, err := s.renderAs(d, w, now, false); return b, err }

	if w.issue == nil {
		labels, _ := overdueLabels([]string{s.cfg.Label}, overdue(w))
		req := &gh.IssueRequest{Title: &title, Body: &body, Labels: &labels}
		if login != "" {
			req.Assignees = &[]string{login}
		}
		url, err := s.create(ctx, w, req, unassigned, res)
		if url != "" {
			res.IssueURLs[w.id] = url // filed, even if something is wrong with it
		}
		if err != nil {
			if url != "" {
				res.Created++
			}
			return fmt.Errorf("github: create issue for %s: %w", id, err)
		}
		res.Created++
		return nil
	}

	is := w.issue
	res.IssueURLs[w.id] = is.url
	s.noteWaived(res, w, m.items)
	if !is.open && w.report == nil && len(w.findings) == 0 {
		// A closed issue whose backfill has left the estate: re-rendering
		// it without the backfill's details would only lose information.
		res.Unchanged++
		return nil
	}

	req := &gh.IssueRequest{}
	changed := false
	if title != is.title {
		req.Title, changed = &title, true
	}
	if body != is.body {
		req.Body, changed = &body, true
	}
	if login != "" && login != prev.Assignee && !slices.Contains(is.assignees, login) {
		req.Assignees, changed = &[]string{login}, true
		*req.Assignees = append(*req.Assignees, is.assignees...)
	}
	owed := mk.Pending
	switch {
	case owed == nil:
	case owed.Kind == kindClose:
		req.State, req.StateReason = gh.String("closed"), gh.String("completed")
	default:
		req.State = gh.String("open")
		if labelled {
			// Off, so that accepting again is a new label event to judge.
			labels := slices.DeleteFunc(slices.Clone(is.labels), func(l string) bool { return strings.EqualFold(l, s.cfg.WaiverLabel) })
			req.Labels = &labels
		}
	}
	// The overdue label follows the findings, on top of whatever labels
	// the issue has (the waiver label's removal above included).
	current := is.labels
	if req.Labels != nil {
		current = *req.Labels
	}
	if labels, moved := overdueLabels(current, overdue(w)); moved {
		req.Labels, changed = &labels, true
	}
	if !changed && owed == nil {
		res.Unchanged++
		return nil
	}
	if err := s.edit(ctx, is, req, describe(req, is.number, id), unassigned, res); err != nil {
		return fmt.Errorf("github: update issue #%d for %s: %w", is.number, id, err)
	}
	switch {
	case req.State == nil:
		res.Edited++
		return nil
	case *req.State == "closed":
		res.Closed++
	default:
		res.Reopened++
	}
	if err := s.comment(ctx, is.number, owed, id); err != nil {
		return fmt.Errorf("github: comment on issue #%d for %s: %w (the issue's marker keeps it owed: the next run posts it unless it landed)", is.number, id, err)
	}
	res.Commented++
	return s.clearPending(ctx, is, req, mk, id, res)
}

// Transition comment kinds.
const (
	kindClose  = "close"
	kindReopen = "reopen"
)

// owes is the state change, and so the comment, the issue owes: closing
// when nothing blocks, reopening when something does; "" when its state
// stays, or when it is new or closed and left alone.
func owes(w *work, m merged) string {
	is := w.issue
	if is == nil || (!is.open && w.report == nil && len(w.findings) == 0) {
		return ""
	}
	switch wantOpen := blocking(m.items); {
	case is.open && !wantOpen:
		return kindClose
	case !is.open && wantOpen:
		return kindReopen
	}
	return ""
}

// transition is the comment a state change of kind owes, since is the
// sink's clock.
func transition(kind string, m merged, cs commentSettings, now, since time.Time) *pending {
	p := pending{Kind: kind}
	if kind == kindClose {
		p.Body = closeComment(m.items, now)
	} else {
		p.Body = reopenComment(m, cs, now)
	}
	p.Key, p.Since = transitionKey(p.Kind, now, m.items), since
	return &p
}

// settle posts the transition comment an interrupted run owed, unless it
// landed before the run died. The marker's pending entry is dropped by
// this run's edit, as the body it renders has none.
func (s *Sink) settle(ctx context.Context, is *ghIssue, p *pending, id string, res *Result) error {
	found, err := s.hasComment(ctx, is.number, p.Key, p.Since)
	if err != nil {
		return fmt.Errorf("github: issue #%d for %s: look for the %s comment an interrupted run owed: %w", is.number, id, p.Kind, err)
	}
	if found {
		return nil
	}
	if err := s.comment(ctx, is.number, p, id); err != nil {
		return fmt.Errorf("github: comment on issue #%d for %s (owed by an interrupted run): %w", is.number, id, err)
	}
	res.Commented++
	return nil
}

// clearPending drops the owed comment from the issue's marker once it is
// in: the body just written, with the marker written again without it.
func (s *Sink) clearPending(ctx context.Context, is *ghIssue, req *gh.IssueRequest, mk marker, id string, res *Result) error {
	if s.cfg.DryRun || req.Body == nil {
		return nil
	}
	with, err := mk.encode()
	if err != nil {
		return err
	}
	mk.Pending = nil
	without, err := mk.encode()
	if err != nil {
		return err
	}
	body := strings.Replace(*req.Body, with, without, 1)
	if body == *req.Body {
		return nil
	}
	if err := s.edit(ctx, is, &gh.IssueRequest{Body: &body}, fmt.Sprintf("edit #%d for %s: comment posted", is.number, id), nil, res); err != nil {
		return fmt.Errorf("github: issue #%d for %s: comment posted, but not cleared from the issue's marker (the next run finds it and clears it): %w", is.number, id, err)
	}
	return nil
}

// assignee resolves the backfill's owner (the plan's, else the first
// finding's) to a GitHub login through the owner map.
func (s *Sink) assignee(w *work) (owner, login string) {
	if w.report != nil {
		owner = w.report.Backfill.Owner
	}
	for i := 0; owner == "" && i < len(w.findings); i++ {
		owner = w.findings[i].Owner
	}
	if owner == "" {
		return "", ""
	}
	c, ok := s.owners.Lookup(owner)
	if !ok {
		return owner, ""
	}
	return owner, c.GitHub
}

func describe(req *gh.IssueRequest, number int, id string) string {
	switch {
	case req.State != nil && *req.State == "closed":
		return fmt.Sprintf("close #%d for %s: nothing left open", number, id)
	case req.State != nil:
		return fmt.Sprintf("reopen #%d for %s", number, id)
	default:
		return fmt.Sprintf("edit #%d for %s", number, id)
	}
}
