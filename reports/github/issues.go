package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
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
	// draft is the issue as this run would write it, worked out while
	// the listing was read (listIssues); nil when it was not.
	draft *draft
}

func (i *ghIssue) hasLabel(name string) bool {
	return slices.ContainsFunc(i.labels, func(l string) bool { return strings.EqualFold(l, name) })
}

// listedIssue is what the sink reads of an issue in the listing, the
// rest of GitHub's answer skipped: decoding pages is most of what a run
// that changes nothing does.
type listedIssue struct {
	Number  int    `json:"number"`
	HTMLURL string `json:"html_url"`
	Title   string `json:"title"`
	Body    string `json:"body"`
	State   string `json:"state"`
	Labels  []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Assignees []struct {
		Login string `json:"login"`
	} `json:"assignees"`
	// PullRequest is set on pull requests, which the listing holds too.
	PullRequest *struct{} `json:"pull_request"`
}

func fromGitHub(is *listedIssue) (*ghIssue, bool) {
	if is.PullRequest != nil {
		return nil, false // the issues endpoint lists pull requests too
	}
	m, ok := parseMarker(is.Body)
	if !ok {
		return nil, false // labelled by hand, not ours
	}
	out := &ghIssue{
		number: is.Number, url: is.HTMLURL, title: is.Title,
		body: normaliseBody(is.Body), open: is.State != "closed", marker: m,
	}
	for _, l := range is.Labels {
		out.labels = append(out.labels, l.Name)
	}
	for _, u := range is.Assignees {
		out.assignees = append(out.assignees, u.Login)
	}
	return out, true
}

// maxIssuePages caps the pages of one issue listing: 100,000 issues
// carrying the label, far past any repository bfaudit keeps in step.
const maxIssuePages = 1000

// maxIssuePage caps the bytes of one page of the listing: 100 issues of
// GitHub's largest body (65,536 characters, escaped in JSON) fit in it.
const maxIssuePage = 64 << 20

// listIssues reads every labelled issue, open and closed, 100 a page, and
// keeps those carrying a marker. since, when set, limits the listing to
// issues updated after it (used to check whether a failed create landed).
// A listing that does not advance (a Link header that always names the
// same page, a page of issues already read) or runs past maxIssuePages
// fails naming its URL: a short list would make the caller file
// duplicates or resolve issues it did not see.
//
// The pages are asked for one call at a time, as GitHub asks of
// integrations, but each page is decoded, and each of its issues handed
// to each (when set), while the next one is on its way: the sink's own
// work hides behind GitHub's answers instead of adding to them (an
// unchanged run over 1,000 backfills took 1.5 times its ten calls'
// latency when each page was decoded, and each body rendered, between
// calls; bench/README.md). The check that the listing advances needs a
// page decoded, so it runs one page behind: a listing that must stop
// costs one call more.
func (s *Sink) listIssues(ctx context.Context, since time.Time, each func(*ghIssue)) ([]*ghIssue, error) {
	q := url.Values{"state": {"all"}, "labels": {s.cfg.Label}, "per_page": {"100"}}
	if !since.IsZero() {
		q.Set("since", since.Format(time.RFC3339))
	}
	listing := s.client.BaseURL.JoinPath("repos", s.cfg.owner(), s.cfg.name(), "issues")
	pager := remote.Pager{What: "GET " + redact.URLOf(listing), Max: maxIssuePages}
	var out []*ghIssue
	var decoding chan error // the page being decoded, nil when none
	decoded := func() error {
		if decoding == nil {
			return nil
		}
		err := <-decoding
		decoding = nil
		return err
	}
	for {
		raw, next, err := s.listPage(ctx, q)
		// The page before must have passed the pager's checks for this
		// one to count: its verdict comes first.
		if derr := decoded(); derr != nil {
			return out, derr
		}
		if err != nil {
			return out, err
		}
		decoding = make(chan error, 1)
		go func() {
			issues, ids, err := decodeIssues(raw)
			if err == nil {
				for _, is := range issues {
					if each != nil {
						each(is)
					}
				}
				out = append(out, issues...)
				cursor := ""
				if next != 0 {
					cursor = strconv.Itoa(next)
				}
				err = pager.Next(cursor, ids...)
			}
			decoding <- err
		}()
		if next == 0 {
			return out, decoded()
		}
		q.Set("page", strconv.Itoa(next))
	}
}

// listPage asks for one page of the listing and returns it undecoded,
// with the number of the page after it (0 on the last).
func (s *Sink) listPage(ctx context.Context, q url.Values) ([]byte, int, error) {
	u := fmt.Sprintf("repos/%v/%v/issues?%s", s.cfg.owner(), s.cfg.name(), q.Encode())
	req, err := s.client.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/vnd.github.squirrel-girl-preview") // as go-github's ListByRepo asks
	resp, err := s.client.BareDo(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	raw, err := remote.ReadAll(resp.Body, maxIssuePage)
	if err != nil {
		return nil, 0, err
	}
	return raw, resp.NextPage, nil
}

// decodeIssues reads a page of the listing: the issues carrying a marker,
// and the number of every issue it held, for the pager.
func decodeIssues(raw []byte) ([]*ghIssue, []string, error) {
	var page []*listedIssue
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&page); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err // an empty answer reads as no issue, as go-github reads it
	}
	ids := make([]string, len(page))
	var out []*ghIssue
	for n, is := range page {
		if is == nil {
			continue // null in the list: no issue
		}
		if is.Number != 0 {
			ids[n] = strconv.Itoa(is.Number)
		}
		if i, ok := fromGitHub(is); ok {
			out = append(out, i)
		}
	}
	return out, ids, nil
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
	return workList(reportWork(r), existing)
}

// workList gives each backfill of byKey (reportWork) its issue, adds the
// backfills that have only an issue, and lists those with something to
// do, by key.
func workList(byKey map[model.BackfillID]*work, existing map[model.BackfillID]*ghIssue) []*work {
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

// reportWork is the report's side of collectWork: each backfill's report
// and findings, by key, no issue yet.
func reportWork(r *model.Report) map[model.BackfillID]*work {
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
	return byKey
}
