package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	gh "github.com/google/go-github/v60/github"
)

// pace spaces writes by github.write_interval, as GitHub asks of
// integrations making many content-creating calls.
func (s *Sink) pace(ctx context.Context) error {
	if s.cfg.DryRun {
		return nil
	}
	if d := s.cfg.writeInterval(); s.wroteAny && d > 0 {
		if err := s.sleep(ctx, d); err != nil {
			return err
		}
	}
	s.wroteAny = true
	return nil
}

func (s *Sink) issuesPath() string { return "/repos/" + s.cfg.Repo + "/issues" }

// create files an issue and returns its URL ("" in a dry run). A create
// that fails on the server may still have landed, so before trying again
// it lists the issues updated since it started and adopts the one carrying
// this backfill's marker: never a duplicate.
func (s *Sink) create(ctx context.Context, w *work, req *gh.IssueRequest, unassigned func() (string, error), res *Result) (string, error) {
	if s.cfg.DryRun {
		return "", s.printCall(http.MethodPost, s.issuesPath(), "create issue for "+w.id, w.id, 0, req)
	}
	started := s.now()
	var url string
	var failed error // the last try's, when it failed on the server
	err := remote.Retry(ctx, serverRetry(s.sleep), func() error {
		if failed != nil {
			landed, err := s.listIssues(ctx, started.Add(-10*time.Minute), nil)
			if err != nil {
				return errors.Join(failed, err)
			}
			for _, i := range landed {
				if model.ParseID(i.marker.Backfill) == w.key {
					url = i.url
					return nil
				}
			}
		}
		for {
			if err := s.pace(ctx); err != nil {
				return err
			}
			is, resp, err := s.client.Issues.Create(ctx, s.cfg.owner(), s.cfg.name(), req)
			if err == nil {
				url = is.GetHTMLURL()
				return s.checkLabelled(is)
			}
			if dropAssignees(err, req, res, w.id) {
				if err := rebody(req, unassigned); err != nil {
					return err
				}
				continue
			}
			if resp == nil || resp.StatusCode < 500 {
				return err
			}
			failed = err
			return remote.Retryable(err, 0)
		}
	})
	return url, err
}

// checkLabelled makes sure a new issue carries the label: GitHub drops the
// labels of a new issue silently when the token's user has no push access,
// and an issue without the label is never found again, so every run would
// file another. Stopping the run (ErrIncomplete) bounds that to one issue.
func (s *Sink) checkLabelled(is *gh.Issue) error {
	for _, l := range is.Labels {
		if strings.EqualFold(l.GetName(), s.cfg.Label) {
			return nil
		}
	}
	return fmt.Errorf("%w: GitHub filed issue #%d without the label %q, as it does when the token's user has no push access to %s; "+
		"bfaudit finds its issues by that label, so it stops rather than file issues it cannot find again: "+
		"give the token write access, then label #%d by hand", ErrIncomplete, is.GetNumber(), s.cfg.Label, s.cfg.Repo, is.GetNumber())
}

// edit applies req to an issue; PATCH is idempotent, so the transport
// retries it on server errors.
func (s *Sink) edit(ctx context.Context, is *ghIssue, req *gh.IssueRequest, what string, unassigned func() (string, error), res *Result) error {
	path := fmt.Sprintf("%s/%d", s.issuesPath(), is.number)
	if s.cfg.DryRun {
		return s.printCall(http.MethodPatch, path, what, is.marker.Backfill, is.number, req)
	}
	for {
		if err := s.pace(ctx); err != nil {
			return err
		}
		_, _, err := s.client.Issues.Edit(ctx, s.cfg.owner(), s.cfg.name(), is.number, req)
		if err == nil || !dropAssignees(err, req, res, is.marker.Backfill) {
			return err
		}
		if err := rebody(req, unassigned); err != nil {
			return err
		}
	}
}

// rebody puts the body rendered without the refused assignee into req, so
// the issue does not claim an assignment GitHub refused.
func rebody(req *gh.IssueRequest, unassigned func() (string, error)) error {
	body, err := unassigned()
	if err != nil {
		return err
	}
	req.Body = &body
	return nil
}

// comment posts a transition comment, marked so a rerun can tell it is
// there. A failed comment is not retried: it may have landed; the issue's
// marker still holds it as pending, and the next run looks for it before
// posting it.
func (s *Sink) comment(ctx context.Context, number int, p *pending, id string) error {
	body, err := markComment(p.Body, p.Kind, p.Key)
	if err != nil {
		return err
	}
	path := fmt.Sprintf("%s/%d/comments", s.issuesPath(), number)
	if s.cfg.DryRun {
		return s.printCall(http.MethodPost, path, fmt.Sprintf("comment on #%d for %s", number, id), id, number, &gh.IssueComment{Body: &body})
	}
	return s.postComment(ctx, number, body)
}

func (s *Sink) postComment(ctx context.Context, number int, body string) error {
	if err := s.pace(ctx); err != nil {
		return err
	}
	_, _, err := s.client.Issues.CreateComment(ctx, s.cfg.owner(), s.cfg.name(), number, &gh.IssueComment{Body: &body})
	return err
}

// dropAssignees handles GitHub refusing an assignee (422: not a
// collaborator): the call is tried again without, and a warning says so.
func dropAssignees(err error, req *gh.IssueRequest, res *Result, id string) bool {
	var er *gh.ErrorResponse
	if req.Assignees == nil || !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusUnprocessableEntity {
		return false
	}
	res.Warnings = append(res.Warnings, fmt.Sprintf("%s: GitHub refused assignees %s (%s); left unassigned",
		id, strings.Join(*req.Assignees, ", "), er.Message))
	req.Assignees = nil
	return true
}

// plannedCall is one line of a dry run's plan: a write the run would
// make, as JSON, so the plan can be piped to jq. Request is exactly the
// body the call would send (for a comment, {"body": ...}).
type plannedCall struct {
	Sink     string `json:"sink"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	What     string `json:"what"`
	Backfill string `json:"backfill"`
	Issue    int    `json:"issue,omitempty"` // 0 for a new issue
	Request  any    `json:"request"`
}

// printCall writes one planned call to the dry-run writer, on one line.
func (s *Sink) printCall(method, path, what, backfill string, issue int, request any) error {
	b, err := json.Marshal(plannedCall{Sink: "github", Method: method, Path: path, What: what,
		Backfill: backfill, Issue: issue, Request: request})
	if err != nil {
		return fmt.Errorf("github: dry run: encode %s %s: %w", method, path, err)
	}
	if _, err := s.out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("github: dry run: write the plan: %w", err)
	}
	return nil
}
