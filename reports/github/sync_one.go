package github

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	gh "github.com/google/go-github/v60/github"
)

// syncOne brings one backfill's issue in step. Writes are ordered so that
// an interruption loses at most a comment, never duplicates one: the state
// change comes first, the comment after (a re-run sees the new state and
// has nothing left to say).
func (s *Sink) syncOne(ctx context.Context, r *model.Report, w *work, res *Result) error {
	var prev marker
	id := w.id
	if w.issue != nil {
		prev = w.issue.marker
		id = prev.Backfill // keep the issue's spelling: no churn between sources
	}
	now := s.auditTime(r)
	if w.issue != nil && prev.Pending != nil {
		// A run died between a state change and its comment.
		if err := s.settle(ctx, w.issue, prev.Pending, id, res); err != nil {
			return err
		}
	}
	ans := model.AnswersOf(r.Coverage)
	described := describedBy(prev, w.report, ans)
	m := mergeItems(prev.Items, w.findings, ans, described, w.report)
	m.expire(now, s.cfg.acceptDays())
	if w.issue == nil && !blocking(m.items) {
		return nil // nothing open and nothing filed: no issue needed
	}
	var unreadDesc []string
	if described.Source != "" && !ans.Answered(described.Source, described.Path) {
		unreadDesc = []string{model.Unit(described.Source, described.Path)}
		if w.issue != nil {
			s.noteWaived(res, w, m.items)
			return s.keepStale(ctx, w, unreadDesc, now, res)
		}
	}
	// A person closed the issue with the waiver label: find out who and
	// when, once, while something listed is still to be accepted.
	labelled := w.issue != nil && !w.issue.open && w.issue.hasLabel(s.cfg.WaiverLabel)
	if labelled && len(m.acceptable()) > 0 {
		v, err := s.judgeLabel(ctx, w.issue)
		if err != nil {
			res.IssueURLs[w.id] = w.issue.url
			s.noteWaived(res, w, m.items)
			return fmt.Errorf("github: issue #%d for %s was closed with the label %q, but %w; "+
				"what it would accept is not waived this run, and the issue is left as it is", w.issue.number, id, s.cfg.WaiverLabel, err)
		}
		m.accept(v, now, s.cfg.acceptDays(), s.cfg.maxSeverity())
	}

	owner, login := s.assignee(w)
	// The body says the login is assigned when it is, or is asked for now;
	// a login GitHub refused before (the marker remembers it) is not asked
	// for again, and the body says so.
	assigned := w.issue == nil || slices.Contains(w.issue.assignees, login) || login != prev.Assignee
	mk := marker{Backfill: id, Assignee: login, Items: m.items, Described: described}
	// A state change records the comment it owes in the marker it writes,
	// so that a run dying before the comment leaves it to the next.
	mk.Pending = s.transition(w, m, now)
	renderAs := func(assigned bool) (title, body string, err error) {
		v, err := view(id, now, w.report, owner, login, assigned, s.cfg.WaiverLabel, s.cfg.acceptDays(), m.items, unreadUnits(m.items, unreadDesc), mk)
		if err != nil {
			return "", "", err
		}
		return s.render.render(v)
	}
	title, body, err := renderAs(assigned)
	if err != nil {
		return err
	}
	// unassigned re-renders the body when GitHub refuses the login.
	unassigned := func() (string, error) { _, b, err := renderAs(false); return b, err }

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

// transition is the comment the issue's state change owes, nil when its
// state stays: closing when nothing blocks, reopening when something does.
func (s *Sink) transition(w *work, m merged, now time.Time) *pending {
	is := w.issue
	if is == nil || (!is.open && w.report == nil && len(w.findings) == 0) {
		return nil // new, or closed and left alone
	}
	var p pending
	switch wantOpen := blocking(m.items); {
	case is.open && !wantOpen:
		p = pending{Kind: kindClose, Body: closeComment(m.items, now)}
	case !is.open && wantOpen:
		p = pending{Kind: kindReopen, Body: reopenComment(m, s.commentSettings(), now)}
	default:
		return nil
	}
	p.Key, p.Since = transitionKey(p.Kind, now, m.items), s.now()
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
