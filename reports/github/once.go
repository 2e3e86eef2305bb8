package github

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	gh "github.com/google/go-github/v60/github"
)

// Exactly-once comments. A comment bfaudit posts ends with a hidden
// marker naming it: its kind (close, reopen, or a caller's, e.g. a
// reminder) and a key unique to the event it tells of. A transition
// (close, reopen) is written in two steps, the state change and the
// comment, and a run can die between them; so the state change also
// records the comment still owed in the issue's marker (pending, with its
// text), and once the comment is in, a last edit clears it. A rerun that
// finds a comment pending looks for it among the issue's comments (one
// bounded listing, from the transition on) and posts it only when it is
// missing: never lost, never twice.

const (
	commentMarkerPrefix = "<!-- bfaudit:comment v1 "
	commentMarkerSuffix = " -->"
)

// commentMark is the hidden marker at the end of a comment.
type commentMark struct {
	Kind string `json:"kind"`
	Key  string `json:"key"`
}

// pending is a transition comment owed, kept in the issue's marker from
// the state change until the comment is in.
type pending struct {
	Kind string `json:"kind"`
	Key  string `json:"key"`
	// Since is when the transition was written, by the sink's clock: the
	// comment, if it landed, was created after it.
	Since time.Time `json:"since"`
	Body  string    `json:"body"`
}

// transitionKey names one transition of one issue: its kind, the audit
// time and the findings it is about, so a later transition of the same
// kind has another key.
func transitionKey(kind string, now time.Time, items []item) string {
	fps := make([]string, 0, len(items))
	for _, it := range items {
		fps = append(fps, it.FP+"="+string(it.State))
	}
	slices.Sort(fps)
	sum := sha256.Sum256([]byte(strings.Join(fps, "\n")))
	return kind + "-" + now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(sum[:6])
}

// markComment appends the hidden marker to a comment's text.
func markComment(body, kind, key string) (string, error) {
	b, err := json.Marshal(commentMark{Kind: kind, Key: key})
	if err != nil {
		return "", err
	}
	return body + "\n\n" + commentMarkerPrefix + string(b) + commentMarkerSuffix, nil
}

// commentKey reads a comment's marker ("" when it has none).
func commentKey(body string) (kind, key string) {
	i := strings.LastIndex(body, commentMarkerPrefix)
	if i < 0 {
		return "", ""
	}
	rest := body[i+len(commentMarkerPrefix):]
	j := strings.Index(rest, commentMarkerSuffix)
	if j < 0 {
		return "", ""
	}
	var m commentMark
	if json.Unmarshal([]byte(rest[:j]), &m) != nil {
		return "", ""
	}
	return m.Kind, m.Key
}

// maxCommentPages caps one comment listing: 10,000 comments since the
// transition, far past any issue bfaudit writes.
const maxCommentPages = 100

// commentSkew is how far before since a comment is looked for: GitHub's
// clock and the sink's may disagree a little.
const commentSkew = 10 * time.Minute

// hasComment reports whether the issue has a comment marked key, created
// or updated since `since` (zero: all), reading the comments 100 a page.
func (s *Sink) hasComment(ctx context.Context, number int, key string, since time.Time) (bool, error) {
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	if !since.IsZero() {
		t := since.Add(-commentSkew)
		opts.Since = &t
	}
	listing := s.client.BaseURL.JoinPath("repos", s.cfg.owner(), s.cfg.name(), "issues", strconv.Itoa(number), "comments")
	pager := remote.Pager{What: "GET " + redact.URLOf(listing), Max: maxCommentPages}
	for {
		page, resp, err := s.client.Issues.ListComments(ctx, s.cfg.owner(), s.cfg.name(), number, opts)
		if err != nil {
			return false, err
		}
		ids := make([]string, len(page))
		for i, c := range page {
			ids[i] = strconv.FormatInt(c.GetID(), 10)
			if _, k := commentKey(c.GetBody()); k == key {
				return true, nil
			}
		}
		next := ""
		if resp.NextPage != 0 {
			next = strconv.Itoa(resp.NextPage)
		}
		if err := pager.Next(next, ids...); err != nil {
			return false, err
		}
		if next == "" {
			return false, nil
		}
		opts.Page = resp.NextPage
	}
}

// CommentOnce posts body on issue number, marked (kind, key), unless a
// comment so marked is there already (looked for among the comments
// created or updated since `since`, all when zero): one comment per
// (issue, key) across reruns and crashes, e.g. kind "reminder" with key a
// finding's fingerprint and the stage. posted says whether this call
// posted it. A failed post is not retried: it may have landed, and the
// next call finds it.
func (s *Sink) CommentOnce(ctx context.Context, number int, kind, key, body string, since time.Time) (posted bool, err error) {
	marked, err := markComment(body, kind, key)
	if err != nil {
		return false, err
	}
	if s.cfg.DryRun {
		path := fmt.Sprintf("%s/%d/comments", s.issuesPath(), number)
		return false, s.printCall(http.MethodPost, path, fmt.Sprintf("%s comment %s on #%d, unless there", kind, key, number), "", number, &gh.IssueComment{Body: &marked})
	}
	found, err := s.hasComment(ctx, number, key, since)
	if err != nil || found {
		return false, err
	}
	if err := s.postComment(ctx, number, marked); err != nil {
		return false, err
	}
	return true, nil
}
