package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	gh "github.com/google/go-github/v60/github"
)

// Closing an issue with the waiver label accepts the findings it lists.
// Anyone who may label issues could do that, so an acceptance is recorded
// like a config waiver: who applied the label and when (from the issue's
// events), it lasts github.accept_days, github.accept_from may restrict
// who can give it and github.accept_max_severity what it may cover.

// acceptance is who accepted an item and when they applied the label.
type acceptance struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}

func (a acceptance) same(b acceptance) bool { return a.By == b.By && a.At.Equal(b.At) }

// expires is when the acceptance stops waiving: days after the label was
// applied, that instant included (as for config waivers).
func (a acceptance) expires(days int) time.Time {
	return a.At.Add(time.Duration(days) * 24 * time.Hour)
}

// labelVerdict is what the issue's events and github.accept_from say about
// the waiver label on a closed issue.
type labelVerdict struct {
	acc     acceptance // who applied the label, and when (By empty: unknown)
	allowed bool
	// why, when not allowed, is a Markdown sentence for the reopen
	// comment. It names the person only as inline code: no mention.
	why string
}

// maxEventPages bounds the events read to find who applied the label:
// 100 events a page, newest pages first.
const maxEventPages = 10

// errUnchecked marks an acceptance that could not be checked (events or a
// team membership did not answer): the findings are not waived, the issue
// is left as it is, and the run reports itself incomplete. It is never
// mistaken for a write refused (401/403), which would stop the whole run.
var errUnchecked = errors.New("the acceptance could not be checked")

// judgeLabel finds who applied the waiver label to a closed issue and
// whether github.accept_from lets them accept. An error means it could
// not tell: the caller must neither waive nor reopen on it.
func (s *Sink) judgeLabel(ctx context.Context, is *ghIssue) (labelVerdict, error) {
	acc, found, err := s.labelApplied(ctx, is.number)
	if err != nil {
		return labelVerdict{}, fmt.Errorf("%w: read the events of #%d: %s", errUnchecked, is.number, err)
	}
	if !found {
		return labelVerdict{why: fmt.Sprintf("bfaudit found no record in the issue's events of who applied the label %s, "+
			"so the acceptance is ignored", codeSpan(s.cfg.WaiverLabel))}, nil
	}
	ok, err := s.mayAccept(ctx, acc.By)
	if err != nil {
		return labelVerdict{}, fmt.Errorf("%w: %s", errUnchecked, err)
	}
	v := labelVerdict{acc: acc, allowed: ok}
	if !ok {
		names := make([]string, len(s.cfg.AcceptFrom))
		for i, n := range s.cfg.AcceptFrom {
			names[i] = codeSpan(n)
		}
		v.why = fmt.Sprintf("The label %s was applied by %s on %s, but only %s may accept findings here (github.accept_from), "+
			"so the acceptance is ignored", codeSpan(s.cfg.WaiverLabel), codeSpan(acc.By), day(acc.At), joinOr(names))
	}
	return v, nil
}

// labelApplied reads the issue's events for the latest "labeled" event of
// the waiver label. Events come oldest first, so the pages are read from
// the last back; at most maxEventPages of them.
func (s *Sink) labelApplied(ctx context.Context, number int) (acceptance, bool, error) {
	read := func(page int) ([]*gh.IssueEvent, int, error) {
		evs, resp, err := s.client.Issues.ListIssueEvents(ctx, s.cfg.owner(), s.cfg.name(), number, &gh.ListOptions{PerPage: 100, Page: page})
		if err != nil {
			return nil, 0, err
		}
		return evs, resp.LastPage, nil
	}
	first, last, err := read(1)
	if err != nil {
		return acceptance{}, false, err
	}
	for page, reads := max(last, 1), 1; page >= 1; page-- {
		evs := first
		if page > 1 {
			if reads == maxEventPages {
				return acceptance{}, false, fmt.Errorf("the label is not among the newest %d pages of events", maxEventPages-1)
			}
			if evs, _, err = read(page); err != nil {
				return acceptance{}, false, err
			}
			reads++
		}
		for i := len(evs) - 1; i >= 0; i-- {
			ev := evs[i]
			if ev.GetEvent() == "labeled" && strings.EqualFold(ev.GetLabel().GetName(), s.cfg.WaiverLabel) &&
				ev.GetActor().GetLogin() != "" && !ev.GetCreatedAt().IsZero() {
				return acceptance{By: ev.GetActor().GetLogin(), At: ev.GetCreatedAt().UTC()}, true, nil
			}
		}
	}
	return acceptance{}, false, nil
}

// mayAccept tells whether login is in github.accept_from, directly or as
// an active member of a listed team. A team lookup that fails is never
// taken as a yes: with no other entry allowing the login, it is an error.
func (s *Sink) mayAccept(ctx context.Context, login string) (bool, error) {
	if len(s.cfg.AcceptFrom) == 0 {
		return true, nil
	}
	for _, who := range s.cfg.AcceptFrom {
		if !strings.Contains(who, "/") && strings.EqualFold(who, login) {
			return true, nil
		}
	}
	var errs []error
	for _, who := range s.cfg.AcceptFrom {
		org, team, isTeam := strings.Cut(who, "/")
		if !isTeam {
			continue
		}
		ok, err := s.teamMember(ctx, org, team, login)
		if ok {
			return true, nil
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("check whether %s is in the team %s: %s (the token needs read access to the organisation's members)", login, who, err))
		}
	}
	return false, errors.Join(errs...)
}

// teamMember asks GitHub whether login is an active member of org/team,
// once per run. A 404 is GitHub's "no" (not a member, or a team the token
// cannot see); anything else that is not a 200 is an error.
func (s *Sink) teamMember(ctx context.Context, org, team, login string) (bool, error) {
	key := strings.ToLower(org + "/" + team + "\x00" + login)
	if ok, seen := s.members[key]; seen {
		return ok, nil
	}
	m, _, err := s.client.Teams.GetTeamMembershipBySlug(ctx, org, team, login)
	var er *gh.ErrorResponse
	switch {
	case err == nil:
		s.members[key] = m.GetState() == "active"
	case errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound:
		s.members[key] = false
	default:
		return false, err
	}
	return s.members[key], nil
}

// expire turns accepted items whose acceptance has run out back into open
// ones; they count again from that instant.
func (m *merged) expire(now time.Time, days int) {
	for i := range m.items {
		it := &m.items[i]
		if it.State != stateAccepted || it.finding == nil || now.Before(it.Accepted.expires(days)) {
			continue
		}
		it.lapsed = it.Accepted
		it.State, it.unread = openState(it.finding)
		it.Accepted = nil
		it.listed = true
	}
}

// acceptable lists the items the waiver label would accept: listed on the
// issue and not ticked when it was closed.
func (m *merged) acceptable() []int {
	var out []int
	for i, it := range m.items {
		if it.listed && it.State.blocking() {
			out = append(out, i)
		}
	}
	return out
}

// accept applies the verdict on the label to the acceptable items: each is
// accepted if the person may accept, the label has not run out, and the
// item is not more severe than max.
func (m *merged) accept(v labelVerdict, now time.Time, days int, max model.Severity) {
	m.label = &v
	if !v.allowed || !now.Before(v.acc.expires(days)) {
		return
	}
	for _, i := range m.acceptable() {
		it := &m.items[i]
		if sev, err := model.ParseSeverity(it.Severity); err != nil || sev > max {
			it.refused = true // unknown severity: not shown to be acceptable
			continue
		}
		acc := v.acc
		it.State, it.Accepted, it.unread, it.lapsed = stateAccepted, &acc, nil, nil
	}
}

// noteWaived adds the issue's acceptances to the result, one entry per
// acceptance, with the findings of this run it covers.
func (s *Sink) noteWaived(res *Result, w *work, items []item) {
	days := s.cfg.acceptDays()
	var out []Waived
	for _, it := range items {
		if it.State != stateAccepted || it.finding == nil {
			continue
		}
		i := slices.IndexFunc(out, func(x Waived) bool { return it.Accepted.same(acceptance{By: x.Approver, At: x.Accepted}) })
		if i < 0 {
			out = append(out, Waived{BackfillID: w.id, IssueURL: w.issue.url, Approver: it.Accepted.By,
				Accepted: it.Accepted.At, Expires: it.Accepted.expires(days),
				Reason: fmt.Sprintf("accepted on %s (closed with label %s)", w.issue.url, s.cfg.WaiverLabel)})
			i = len(out) - 1
		}
		out[i].Fingerprints = append(out[i].Fingerprints, it.FP)
	}
	res.Waived = append(res.Waived, out...)
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

func joinOr(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
