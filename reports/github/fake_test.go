package github

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/testkit/swagger"
)

// specPath is the extract of GitHub's own description of its REST API
// (testdata/README.md).
const specPath = "testdata/github-api-extract.json"

// loadSpec reads the description once: every test builds a fake, and the
// loaded description is only read from then on.
var loadSpec = sync.OnceValues(func() (*swagger.Spec, error) { return swagger.Load(specPath) })

// fakeGitHub is a tiny GitHub: the issue endpoints bfaudit uses, served at
// their real paths under an Enterprise prefix (/api/v3), with GitHub's JSON
// shapes, Link pagination, validation and rate-limit answers, and state in
// memory. It counts the calls it serves. Every request it receives is
// checked against GitHub's description (rec); one it does not allow fails
// the test that made it.
type fakeGitHub struct {
	t      testing.TB
	srv    *httptest.Server
	rec    *swagger.Recorder
	clock  *fakeClock
	token  string
	owner  string
	repo   string
	logins []string // users who may be assigned

	mu       sync.Mutex
	issues   []*fakeIssue
	comments []fakeComment
	nextID   int64
	reads    int
	writes   int
	// intercept, when set, may answer a request in place of the fake (rate
	// limits, server errors); it sees the call's 1-based sequence number.
	intercept func(n int, r *http.Request) (status int, header http.Header, body string, ok bool)
	calls     int
	// createFails, when it says so, answers the nth create with an error
	// status although the issue was stored (an answer lost on the way).
	createFails func(n int) (status int, ok bool)
	creates     int
	// quota, when set, models the primary rate limit as GitHub counts it.
	quota *fakeQuota
	// noPush is a token whose user may open issues but has no push access:
	// GitHub then drops labels and assignees of a new issue silently.
	noPush bool
	// teams maps "org/team-slug" to its active members' logins.
	teams map[string][]string
	// latency, when set, is how long each answer takes (in real time).
	latency time.Duration
	// eventID numbers issue events across issues, as GitHub does.
	eventID int64
}

// botLogin is the user the token belongs to: the fake records bfaudit's
// own label and state changes in the issue events under it.
const botLogin = "bfaudit-bot"

// fakeEvent is one entry of an issue's timeline of events.
type fakeEvent struct {
	id    int64
	actor string
	event string // labeled, unlabeled, closed, reopened
	label string
	at    time.Time
}

// fakeQuota is GitHub's primary rate limit: per requests a window. The
// request that spends the last one succeeds with X-RateLimit-Remaining: 0;
// later ones get a 403 until the window resets.
type fakeQuota struct {
	per     int
	window  time.Duration
	left    int
	reset   time.Time
	refused int // requests answered 403 because the quota was spent
}

type fakeIssue struct {
	number      int
	title, body string
	state       string
	stateReason string
	labels      []string
	assignees   []string
	pull        bool
	created     time.Time
	updated     time.Time
	closed      time.Time
	events      []fakeEvent
}

type fakeComment struct {
	issue int
	body  string
	id    int64
	at    time.Time
}

type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	slept  time.Duration
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep advances the clock instead of waiting.
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept += d
	c.sleeps = append(c.sleeps, d)
	return nil
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

const testToken = "ghp_TESTTOKENdoNotLeak0123456789abcdef"

func newFakeGitHub(t testing.TB) *fakeGitHub {
	t.Helper()
	spec, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeGitHub{
		t: t, rec: &swagger.Recorder{Spec: spec, Prefix: "/api/v3"}, token: testToken, owner: "acme", repo: "data-platform",
		logins: []string{"alice", "bob", "carol"},
		clock:  &fakeClock{now: time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC)},
	}
	mux := http.NewServeMux()
	prefix := "/api/v3/repos/" + f.owner + "/" + f.repo
	mux.HandleFunc("GET "+prefix+"/issues", f.list)
	mux.HandleFunc("POST "+prefix+"/issues", f.create)
	mux.HandleFunc("PATCH "+prefix+"/issues/{number}", f.edit)
	mux.HandleFunc("POST "+prefix+"/issues/{number}/comments", f.comment)
	mux.HandleFunc("GET "+prefix+"/issues/{number}/comments", f.listComments)
	mux.HandleFunc("GET "+prefix+"/issues/{number}/events", f.listEvents)
	mux.HandleFunc("GET /api/v3/orgs/{org}/teams/{team}/memberships/{user}", f.membership)
	// The description is written for api.github.com: the check sees the
	// path without GitHub Enterprise's /api/v3, the fake the request as it
	// came; intercepts and refusals are checked as any request.
	serve := f.rec.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls++
		n := f.calls
		if r.Method == http.MethodGet {
			f.reads++
		} else {
			f.writes++
		}
		icpt := f.intercept
		limit := f.rateHeaders()
		refused := f.quota != nil && f.quota.left < 0
		f.mu.Unlock()
		f.answer(w, r, n, icpt, limit, refused, mux)
	}))
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		latency := f.latency
		f.mu.Unlock()
		if latency == 0 {
			serve.ServeHTTP(w, r)
			return
		}
		// The answer leaves latency after the request came, the fake's own
		// work included (checking the request against the description,
		// building a page of 100 issues), as from a server that answers in
		// that time: the scale bench holds the sink to calls × latency, and
		// the fake's work is not the sink's.
		start := time.Now()
		rec := httptest.NewRecorder()
		serve.ServeHTTP(rec, r)
		time.Sleep(latency - time.Since(start))
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(func() {
		f.srv.Close()
		for _, v := range f.rec.Violations() {
			t.Errorf("contract: %s", v)
		}
	})
	return f
}

// answer is the fake's answer to the nth request, before any latency.
func (f *fakeGitHub) answer(w http.ResponseWriter, r *http.Request, n int, icpt func(int, *http.Request) (int, http.Header, string, bool), limit http.Header, refused bool, mux *http.ServeMux) {
	if refused {
		writeJSON(w, http.StatusForbidden, limit, map[string]string{
			"message": "API rate limit exceeded for user ID 1.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+f.token {
		writeJSON(w, http.StatusUnauthorized, nil, map[string]string{
			"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
		return
	}
	if icpt != nil {
		if status, h, body, ok := icpt(n, r); ok {
			for k, v := range h {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
			return
		}
	}
	for k, v := range limit {
		w.Header()[k] = v
	}
	mux.ServeHTTP(w, r)
}

// rateHeaders are on every GitHub answer; with a quota they count this
// request (f.mu held). A spent quota shows as left < 0.
func (f *fakeGitHub) rateHeaders() http.Header {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "4999")
	h.Set("X-RateLimit-Used", "1")
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(f.clock.Now().Add(time.Hour).Unix(), 10))
	if q := f.quota; q != nil {
		if now := f.clock.Now(); !now.Before(q.reset) {
			q.left, q.reset = q.per, now.Add(q.window)
		}
		q.left--
		if q.left < 0 {
			q.refused++
		}
		h.Set("X-RateLimit-Limit", strconv.Itoa(q.per))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(max(q.left, 0)))
		h.Set("X-RateLimit-Used", strconv.Itoa(min(q.per-q.left, q.per)))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(q.reset.Unix(), 10))
	}
	return h
}

func writeJSON(w http.ResponseWriter, status int, h http.Header, v any) {
	for k, vs := range h {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeGitHub) issueJSON(i *fakeIssue) map[string]any {
	base := f.srv.URL + "/api/v3/repos/" + f.owner + "/" + f.repo
	html := "https://github.example.com/" + f.owner + "/" + f.repo + "/issues/" + strconv.Itoa(i.number)
	labels := []map[string]any{}
	for n, l := range i.labels {
		labels = append(labels, map[string]any{"id": 1000 + n, "name": l, "color": "ededed", "default": false})
	}
	assignees := []map[string]any{}
	for _, a := range i.assignees {
		assignees = append(assignees, f.userJSON(a, "User"))
	}
	self := base + "/issues/" + strconv.Itoa(i.number)
	m := map[string]any{
		"id": 5000 + i.number, "node_id": "I_kw" + strconv.Itoa(i.number), "number": i.number,
		"url": self, "html_url": html, "repository_url": base, "labels_url": base + "/labels{/name}",
		"comments_url": self + "/comments", "events_url": self + "/events",
		"title": i.title, "body": i.body, "state": i.state, "state_reason": nilIfEmpty(i.stateReason),
		"labels": labels, "assignees": assignees, "milestone": nil, "locked": false, "comments": 0,
		"user":       f.userJSON(botLogin, "Bot"),
		"created_at": i.created.Format(time.RFC3339), "updated_at": i.updated.Format(time.RFC3339),
		"closed_at": nil, "author_association": "NONE",
	}
	if len(i.assignees) > 0 {
		m["assignee"] = assignees[0]
	} else {
		m["assignee"] = nil
	}
	if !i.closed.IsZero() {
		m["closed_at"] = i.closed.Format(time.RFC3339)
	}
	if i.pull {
		m["pull_request"] = map[string]any{"url": base + "/pulls/" + strconv.Itoa(i.number)}
	}
	return m
}

// userJSON is a user as GitHub shows one (simple-user): every field the
// description requires, the sink reads only login.
func (f *fakeGitHub) userJSON(login, typ string) map[string]any {
	api := f.srv.URL + "/api/v3/users/" + login
	return map[string]any{
		"login": login, "id": len(login), "node_id": "U_" + login, "type": typ, "site_admin": false,
		"avatar_url": "https://avatars.github.example.com/" + login, "gravatar_id": "",
		"url": api, "html_url": "https://github.example.com/" + login,
		"followers_url": api + "/followers", "following_url": api + "/following{/other_user}",
		"gists_url": api + "/gists{/gist_id}", "starred_url": api + "/starred{/owner}{/repo}",
		"subscriptions_url": api + "/subscriptions", "organizations_url": api + "/orgs",
		"repos_url": api + "/repos", "events_url": api + "/events{/privacy}",
		"received_events_url": api + "/received_events",
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// list is GET /repos/{owner}/{repo}/issues: labels (all must match), state
// (default open), since (updated at or after), sort created desc, per_page
// (default 30, at most 100), page, and a Link header like GitHub's.
func (f *fakeGitHub) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	var since time.Time
	if s := q.Get("since"); s != "" {
		var err error
		if since, err = time.Parse(time.RFC3339, s); err != nil {
			writeJSON(w, http.StatusUnprocessableEntity, nil, map[string]string{"message": "Validation Failed"})
			return
		}
	}
	perPage, _ := strconv.Atoi(q.Get("per_page"))
	if perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)

	f.mu.Lock()
	var match []*fakeIssue
	for i := len(f.issues) - 1; i >= 0; i-- { // newest first
		is := f.issues[i]
		if state != "all" && is.state != state {
			continue
		}
		if !since.IsZero() && is.updated.Before(since) {
			continue
		}
		ok := true
		for _, l := range want {
			ok = ok && slices.Contains(is.labels, l)
		}
		if ok {
			match = append(match, is)
		}
	}
	last := max((len(match)+perPage-1)/perPage, 1)
	out := []map[string]any{}
	for i := (page - 1) * perPage; i < min(page*perPage, len(match)); i++ {
		out = append(out, f.issueJSON(match[i]))
	}
	f.mu.Unlock()

	writeJSON(w, http.StatusOK, pageLinks(r, page, last), out)
}

// pageLinks is GitHub's Link header for page of last.
func pageLinks(r *http.Request, page, last int) http.Header {
	link := func(p int, rel string) string {
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		qq := u.Query()
		qq.Set("page", strconv.Itoa(p))
		u.RawQuery = qq.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	h := http.Header{}
	if len(links) > 0 {
		h.Set("Link", strings.Join(links, ", "))
	}
	return h
}

// listEvents is GET /repos/{owner}/{repo}/issues/{number}/events: oldest
// first, per_page (default 30, at most 100), page, Link header; each event
// in GitHub's shape (actor, event, created_at, label for label events).
func (f *fakeGitHub) listEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	perPage, _ := strconv.Atoi(q.Get("per_page"))
	if perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	f.mu.Lock()
	is := f.issue(w, r)
	if is == nil {
		f.mu.Unlock()
		return
	}
	evs := slices.Clone(is.events)
	f.mu.Unlock()
	last := max((len(evs)+perPage-1)/perPage, 1)
	out := []map[string]any{}
	base := f.srv.URL + "/api/v3/repos/" + f.owner + "/" + f.repo + "/issues/events/"
	for i := (page - 1) * perPage; i < min(page*perPage, len(evs)); i++ {
		e := evs[i]
		m := map[string]any{
			"id": e.id, "node_id": "IE_" + strconv.FormatInt(e.id, 10), "url": base + strconv.FormatInt(e.id, 10),
			"actor": f.userJSON(e.actor, "User"),
			"event": e.event, "commit_id": nil, "commit_url": nil,
			"created_at": e.at.Format(time.RFC3339), "performed_via_github_app": nil,
		}
		if e.label != "" {
			m["label"] = map[string]any{"name": e.label, "color": "ededed"}
		}
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, pageLinks(r, page, last), out)
}

// membership is GET /orgs/{org}/teams/{team_slug}/memberships/{username}:
// 200 with state "active" for a member, 404 otherwise.
func (f *fakeGitHub) membership(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	members := f.teams[r.PathValue("org")+"/"+r.PathValue("team")]
	f.mu.Unlock()
	user := r.PathValue("user")
	if !slices.ContainsFunc(members, func(m string) bool { return strings.EqualFold(m, user) }) {
		writeJSON(w, http.StatusNotFound, nil, map[string]string{
			"message": "Not Found", "documentation_url": "https://docs.github.com/rest/teams/members#get-team-membership-for-a-user"})
		return
	}
	writeJSON(w, http.StatusOK, nil, map[string]any{
		"url":  f.srv.URL + "/api/v3/teams/1/memberships/" + user,
		"role": "member", "state": "active",
	})
}

// event records an event on is (f.mu held).
func (f *fakeGitHub) event(is *fakeIssue, actor, event, label string) {
	f.eventID++
	is.events = append(is.events, fakeEvent{id: f.eventID, actor: actor, event: event, label: label, at: f.clock.Now()})
}

type issueRequest struct {
	Title       *string   `json:"title"`
	Body        *string   `json:"body"`
	State       *string   `json:"state"`
	StateReason *string   `json:"state_reason"`
	Labels      *[]string `json:"labels"`
	Assignees   *[]string `json:"assignees"`
}

func (f *fakeGitHub) validAssignees(w http.ResponseWriter, as *[]string) bool {
	if as == nil {
		return true
	}
	for _, a := range *as {
		if !slices.Contains(f.logins, a) {
			writeJSON(w, http.StatusUnprocessableEntity, nil, map[string]any{
				"message":           "Validation Failed",
				"errors":            []map[string]string{{"value": a, "resource": "Issue", "field": "assignees", "code": "invalid"}},
				"documentation_url": "https://docs.github.com/rest/issues/issues#create-an-issue",
			})
			return false
		}
	}
	return true
}

func (f *fakeGitHub) create(w http.ResponseWriter, r *http.Request) {
	var req issueRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Title == nil || *req.Title == "" {
		writeJSON(w, http.StatusUnprocessableEntity, nil, map[string]string{"message": "Validation Failed"})
		return
	}
	if f.noPush {
		req.Labels, req.Assignees = nil, nil
	}
	if !f.validAssignees(w, req.Assignees) {
		return
	}
	f.mu.Lock()
	now := f.clock.Now()
	is := &fakeIssue{number: len(f.issues) + 1, title: *req.Title, state: "open", created: now, updated: now}
	if req.Body != nil {
		is.body = *req.Body
	}
	if req.Labels != nil {
		is.labels = slices.Clone(*req.Labels)
	}
	if req.Assignees != nil {
		is.assignees = slices.Clone(*req.Assignees)
	}
	for _, l := range is.labels {
		f.event(is, botLogin, "labeled", l)
	}
	f.issues = append(f.issues, is)
	f.creates++
	fail := f.createFails
	n := f.creates
	body := f.issueJSON(is)
	f.mu.Unlock()
	if fail != nil {
		if status, ok := fail(n); ok { // stored, but the answer is lost
			writeJSON(w, status, nil, map[string]string{"message": "Server Error"})
			return
		}
	}
	writeJSON(w, http.StatusCreated, nil, body)
}

func (f *fakeGitHub) issue(w http.ResponseWriter, r *http.Request) *fakeIssue {
	n, _ := strconv.Atoi(r.PathValue("number"))
	if n < 1 || n > len(f.issues) {
		writeJSON(w, http.StatusNotFound, nil, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
		return nil
	}
	return f.issues[n-1]
}

func (f *fakeGitHub) edit(w http.ResponseWriter, r *http.Request) {
	var req issueRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, nil, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	if !f.validAssignees(w, req.Assignees) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	is := f.issue(w, r)
	if is == nil {
		return
	}
	now := f.clock.Now()
	if req.Title != nil {
		is.title = *req.Title
	}
	if req.Body != nil {
		is.body = *req.Body
	}
	if req.Labels != nil {
		for _, l := range is.labels {
			if !slices.Contains(*req.Labels, l) {
				f.event(is, botLogin, "unlabeled", l)
			}
		}
		for _, l := range *req.Labels {
			if !slices.Contains(is.labels, l) {
				f.event(is, botLogin, "labeled", l)
			}
		}
		is.labels = slices.Clone(*req.Labels)
	}
	if req.Assignees != nil {
		is.assignees = slices.Clone(*req.Assignees)
	}
	if req.State != nil && *req.State != is.state {
		is.state = *req.State
		if is.state == "closed" {
			f.event(is, botLogin, "closed", "")
		} else {
			f.event(is, botLogin, "reopened", "")
		}
		if is.state == "closed" {
			is.closed, is.stateReason = now, "completed"
			if req.StateReason != nil {
				is.stateReason = *req.StateReason
			}
		} else {
			is.closed, is.stateReason = time.Time{}, "reopened"
		}
	}
	is.updated = now
	writeJSON(w, http.StatusOK, nil, f.issueJSON(is))
}

func (f *fakeGitHub) comment(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Body string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Body == "" {
		writeJSON(w, http.StatusUnprocessableEntity, nil, map[string]string{"message": "Validation Failed"})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	is := f.issue(w, r)
	if is == nil {
		return
	}
	is.updated = f.clock.Now()
	f.nextID++
	f.comments = append(f.comments, fakeComment{issue: is.number, body: req.Body, id: f.nextID, at: f.clock.Now()})
	writeJSON(w, http.StatusCreated, nil, f.commentJSON(f.comments[len(f.comments)-1]))
}

// commentJSON is a comment as GitHub shows one (issue-comment).
func (f *fakeGitHub) commentJSON(c fakeComment) map[string]any {
	base := f.srv.URL + "/api/v3/repos/" + f.owner + "/" + f.repo + "/issues/"
	at := c.at.Format(time.RFC3339)
	return map[string]any{
		"id": c.id, "node_id": "IC_" + strconv.FormatInt(c.id, 10), "body": c.body, "user": f.userJSON(botLogin, "Bot"),
		"url":        base + "comments/" + strconv.FormatInt(c.id, 10),
		"html_url":   fmt.Sprintf("https://github.example.com/%s/%s/issues/%d#issuecomment-%d", f.owner, f.repo, c.issue, c.id),
		"issue_url":  base + strconv.Itoa(c.issue),
		"created_at": at, "updated_at": at, "author_association": "NONE",
	}
}

// listComments is GET /repos/{owner}/{repo}/issues/{number}/comments:
// oldest first, since (updated at or after), per_page (default 30, at
// most 100), page, Link header.
func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var since time.Time
	if v := q.Get("since"); v != "" {
		var err error
		if since, err = time.Parse(time.RFC3339, v); err != nil {
			writeJSON(w, http.StatusUnprocessableEntity, nil, map[string]string{"message": "Validation Failed"})
			return
		}
	}
	perPage, _ := strconv.Atoi(q.Get("per_page"))
	if perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	f.mu.Lock()
	is := f.issue(w, r)
	if is == nil {
		f.mu.Unlock()
		return
	}
	var match []fakeComment
	for _, c := range f.comments {
		if c.issue == is.number && !c.at.Before(since) {
			match = append(match, c)
		}
	}
	f.mu.Unlock()
	last := max((len(match)+perPage-1)/perPage, 1)
	out := []map[string]any{}
	for i := (page - 1) * perPage; i < min(page*perPage, len(match)); i++ {
		out = append(out, f.commentJSON(match[i]))
	}
	writeJSON(w, http.StatusOK, pageLinks(r, page, last), out)
}

// closeByHand is alice closing an issue in the browser, with labels.
func (f *fakeGitHub) closeByHand(number int, labels ...string) {
	f.closeByHandAs("alice", number, labels...)
}

// closeByHandAs is a person closing an issue in the browser, with labels;
// the issue's events record who did it.
func (f *fakeGitHub) closeByHandAs(actor string, number int, labels ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	is := f.issues[number-1]
	is.state, is.stateReason, is.closed, is.updated = "closed", "not_planned", f.clock.Now(), f.clock.Now()
	for _, l := range labels {
		f.event(is, actor, "labeled", l)
	}
	f.event(is, actor, "closed", "")
	is.labels = append(is.labels, labels...)
}

// addIssue stores an issue directly (a hand-made one, or a pull request).
func (f *fakeGitHub) addIssue(is fakeIssue) {
	f.mu.Lock()
	defer f.mu.Unlock()
	is.number = len(f.issues) + 1
	if is.state == "" {
		is.state = "open"
	}
	is.created, is.updated = f.clock.Now(), f.clock.Now()
	f.issues = append(f.issues, &is)
}

// snapshot returns copies of the issues and comments.
func (f *fakeGitHub) snapshot() ([]fakeIssue, []fakeComment) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeIssue
	for _, is := range f.issues {
		out = append(out, *is)
	}
	return out, slices.Clone(f.comments)
}

func (f *fakeGitHub) resetCounts() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads, f.writes = 0, 0
}

func (f *fakeGitHub) counts() (reads, writes int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads, f.writes
}

// baseURL is what a GitHub Enterprise user would configure.
func (f *fakeGitHub) baseURL() string {
	u, _ := url.Parse(f.srv.URL)
	return u.String() + "/"
}
