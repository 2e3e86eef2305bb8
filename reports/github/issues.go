package github

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	gh "github.com/google/go-github/v60/github"
)

// ghIssue is what the sink needs of an issue GitHub holds.
type ghIssue struct {
	number    int
	url       string
	title     string
	body      string
	open      bool
	labels    []string
	assignees []string
	marker    marker
}

func (i *ghIssue) hasLabel(name string) bool {
	return slices.ContainsFunc(i.labels, func(l string) bool { return strings.EqualFold(l, name) })
}

func fromGitHub(is *gh.Issue) (*ghIssue, bool) {
	if is.PullRequestLinks != nil {
		return nil, false // the issues endpoint lists pull requests too
	}
	m, ok := parseMarker(is.GetBody())
	if !ok {
		return nil, false // labelled by hand, not ours
	}
	out := &ghIssue{
		number: is.GetNumber(), url: is.GetHTMLURL(), title: is.GetTitle(),
		body: normaliseBody(is.GetBody()), open: is.GetState() != "closed", marker: m,
	}
	for _, l := range is.Labels {
		out.labels = append(out.labels, l.GetName())
	}
	for _, u := range is.Assignees {
		out.assignees = append(out.assignees, u.GetLogin())
	}
	return out, true
}

// maxIssuePages caps the pages of one issue listing: 100,000 issues
// carrying the label, far past any repository bfaudit keeps in step.
const maxIssuePages = 1000

// listIssues reads every labelled issue, open and closed, 100 a page, and
// keeps those carrying a marker. since, when set, limits the listing to
// issues updated after it (used to check whether a failed create landed).
// A listing that does not advance (a Link header that always names the
// same page, a page of issues already read) or runs past maxIssuePages
// fails naming its URL: a short list would make the caller file
// duplicates or resolve issues it did not see.
func (s *Sink) listIssues(ctx context.Context, since time.Time) ([]*ghIssue, error) {
	opts := &gh.IssueListByRepoOptions{
		State:       "all",
		Labels:      []string{s.cfg.Label},
		Since:       since,
		ListOptions: gh.ListOptions{PerPage: 100},
	}
	listing := s.client.BaseURL.JoinPath("repos", s.cfg.owner(), s.cfg.name(), "issues")
	pager := remote.Pager{What: "GET " + redact.URLOf(listing), Max: maxIssuePages}
	var out []*ghIssue
	for {
		page, resp, err := s.client.Issues.ListByRepo(ctx, s.cfg.owner(), s.cfg.name(), opts)
		if err != nil {
			return out, err
		}
		ids := make([]string, len(page))
		for n, is := range page {
			if is.GetNumber() != 0 {
				ids[n] = strconv.Itoa(is.GetNumber())
			}
			if i, ok := fromGitHub(is); ok {
				out = append(out, i)
			}
		}
		next := ""
		if resp.NextPage != 0 {
			next = strconv.Itoa(resp.NextPage)
		}
		if err := pager.Next(next, ids...); err != nil {
			return out, err
		}
		if next == "" {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// indexIssues maps each backfill id to its issue. Should two
// issues carry the same backfill (made by hand, or by an older tool), the
// oldest one is kept and the others are reported, never touched.
func indexIssues(issues []*ghIssue) (map[model.BackfillID]*ghIssue, []string) {
	sort.Slice(issues, func(a, b int) bool { return issues[a].number < issues[b].number })
	idx := make(map[model.BackfillID]*ghIssue, len(issues))
	var dups []string
	for _, i := range issues {
		key := model.ParseID(i.marker.Backfill)
		if _, ok := idx[key]; ok {
			dups = append(dups, i.url)
			continue
		}
		idx[key] = i
	}
	return idx, dups
}

// work is one backfill to bring in step.
type work struct {
	key      model.BackfillID
	id       string // as the report spells it
	report   *model.BackfillReport
	findings []model.Finding
	issue    *ghIssue
}

// collectWork groups the report by backfill: every backfill with findings,
// and every backfill that already has an issue (its items may have been
// resolved). Findings without a backfill id have no issue to go in.
func collectWork(r *model.Report, existing map[model.BackfillID]*ghIssue) []*work {
	byKey := map[model.BackfillID]*work{}
	get := func(id string) *work {
		key := model.ParseID(id)
		w, ok := byKey[key]
		if !ok {
			w = &work{key: key, id: id}
			byKey[key] = w
		}
		return w
	}
	for i := range r.Backfills {
		br := &r.Backfills[i]
		if br.Backfill.ID == "" {
			continue
		}
		w := get(br.Backfill.ID)
		w.id, w.report = br.Backfill.ID, br
	}
	for _, f := range r.Findings {
		if f.BackfillID == "" || f.Fingerprint == "" {
			continue
		}
		w := get(f.BackfillID)
		w.findings = append(w.findings, f)
	}
	for key, is := range existing {
		if w, ok := byKey[key]; ok {
			w.issue = is
		} else {
			byKey[key] = &work{key: key, id: is.marker.Backfill, issue: is}
		}
	}
	out := make([]*work, 0, len(byKey))
	for _, w := range byKey {
		if len(w.findings) > 0 || w.issue != nil {
			out = append(out, w)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].key < out[b].key })
	return out
}
