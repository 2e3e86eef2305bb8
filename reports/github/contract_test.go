package github

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Every request a sink's life sends is allowed by GitHub's own description
// of its REST API (the fake checks each one; see fakeGitHub), and the sink
// does send each operation the description is kept for: filing (one create
// failing on the server, so it lists what landed since), closing with a
// comment, settling a comment an interrupted run owed, and judging an
// acceptance by a team member (the issue's events, the team membership).
func TestContractSinkRequests(t *testing.T) {
	f := newFakeGitHub(t)
	sinkLife(t, f)
	reqs := f.rec.Requests()
	for _, op := range []string{
		`GET /repos/acme/data-platform/issues\?labels=bfaudit&per_page=100&state=all$`,
		`GET /repos/acme/data-platform/issues\?labels=bfaudit&per_page=100&since=[^&]+&state=all$`,
		`POST /repos/acme/data-platform/issues$`,
		`PATCH /repos/acme/data-platform/issues/\d+$`,
		`POST /repos/acme/data-platform/issues/\d+/comments$`,
		`GET /repos/acme/data-platform/issues/\d+/comments\?per_page=100&since=[^&]+$`,
		`GET /repos/acme/data-platform/issues/\d+/events\?page=\d+&per_page=100$`,
		`GET /orgs/acme/teams/platform-leads/memberships/dave$`,
	} {
		re := regexp.MustCompile("^" + op)
		if !slices.ContainsFunc(reqs, re.MatchString) {
			t.Errorf("no request matching %s among:\n%s", op, strings.Join(reqs, "\n"))
		}
	}
	if v := f.rec.Violations(); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}
}

// sinkLife is a sink's life on f that sends every operation the
// description is kept for.
func sinkLife(t *testing.T, f *fakeGitHub) {
	t.Helper()
	s, _ := newTestSink(t, f, func(c *Config) { c.AcceptFrom = []string{"acme/platform-leads"} })
	f.teams = map[string][]string{"acme/platform-leads": {"dave"}}
	e := threeBackfills()

	f.createFails = func(n int) (int, bool) { return http.StatusBadGateway, n == 2 }
	runSync(t, s, e)
	f.createFails = nil

	// BF-1 resolved: closed, and its comment lost to a server error.
	f.intercept = func(_ int, r *http.Request) (int, http.Header, string, bool) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/comments") {
			return http.StatusInternalServerError, nil, `{"message":"Server Error"}`, true
		}
		return 0, nil, "", false
	}
	e = e.without("bigquery://proj-a/tmp/bf_1_tbl").without("gcp-iam://proj-a/roles/editor/sa-bf1").without("")
	if _, err := s.Sync(t.Context(), e.report()); err == nil {
		t.Fatal("a run whose comment failed reports itself complete")
	}
	f.intercept = nil

	// The next run posts the comment it finds missing; and BF-2, closed
	// with the waiver label by a member of the team that may accept, is
	// judged by its events and the team's membership.
	f.closeByHandAs("dave", issueFor(t, f, "BF-2").number, DefaultWaiverLabel)
	res := runSync(t, s, e)
	if res.Commented != 1 || len(res.Waived) != 1 {
		t.Errorf("result %+v, want the owed comment and BF-2 accepted", res)
	}
}

// The validator is not a rubber stamp: requests altered from the ones the
// sink sends are each refused, naming what is wrong.
func TestContractRefusesAlteredRequests(t *testing.T) {
	spec, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	check := func(method, path, query, body string) []string {
		q, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		return spec.Check(method, path, q, []byte(body))
	}
	const issues = "/repos/acme/data-platform/issues"
	for _, c := range []struct{ method, path, query, body string }{
		{"GET", issues, "labels=bfaudit&per_page=100&state=all&page=2&since=2025-03-10T09:00:00Z", ""},
		{"POST", issues, "", `{"title":"t","body":"b","labels":["bfaudit"],"assignees":["alice"]}`},
		{"PATCH", issues + "/7", "", `{"body":"b","state":"closed","state_reason":"completed"}`},
		{"POST", issues + "/7/comments", "", `{"body":"b"}`},
		{"GET", issues + "/7/comments", "per_page=100&since=2025-03-10T09:00:00Z", ""},
		{"GET", issues + "/7/events", "per_page=100&page=2", ""},
		{"GET", "/orgs/acme/teams/platform-leads/memberships/dave", "", ""},
	} {
		if v := check(c.method, c.path, c.query, c.body); len(v) > 0 {
			t.Errorf("the sink's own request %s %s?%s is refused: %v", c.method, c.path, c.query, v)
		}
	}
	for _, c := range []struct {
		name, method, path, query, body, want string
	}{
		{"unknown parameter", "GET", issues, "labels=bfaudit&state=all&per_page=100&label=bfaudit", "", `"label" is not declared`},
		{"state outside its enum", "GET", issues, "labels=bfaudit&state=opened", "", `parameter state: value is not one of the allowed values`},
		{"per_page not an integer", "GET", issues, "per_page=many", "", "parameter per_page"},
		{"since not a date-time", "GET", issues + "/7/comments", "since=yesterday", "", "parameter since"},
		{"parameter repeated", "GET", issues, "state=all&state=open", "", "repeated"},
		{"create without a title", "POST", issues, "", `{"body":"b","labels":["bfaudit"]}`, `property "title" is missing`},
		{"labels not a list", "POST", issues, "", `{"title":"t","labels":"bfaudit"}`, "body: /labels"},
		{"body of the wrong type", "PATCH", issues + "/7", "", `{"body":42}`, "body: /body"},
		{"state_reason outside its enum", "PATCH", issues + "/7", "", `{"state":"closed","state_reason":"done"}`, "body: /state_reason: value is not one of the allowed values"},
		{"comment without a body", "POST", issues + "/7/comments", "", `{}`, `property "body" is missing`},
		{"issue number not an integer", "PATCH", issues + "/seven", "", `{"body":"b"}`, "parameter issue_number"},
		{"method not allowed", "DELETE", issues + "/7", "", "", "does not allow DELETE"},
		{"body on a read", "GET", issues + "/7/events", "", `{"per_page":100}`, "takes none"},
		{"with the Enterprise prefix", "GET", "/api/v3" + issues, "", "", "no path"},
		{"team by id", "GET", "/teams/1/memberships/dave", "", "", "no path"},
	} {
		v := check(c.method, c.path, c.query, c.body)
		if !strings.Contains(strings.Join(v, "\n"), c.want) {
			t.Errorf("%s: violations %v, want one saying %q", c.name, v, c.want)
		}
	}
}

type answerSchema struct {
	op     *regexp.Regexp
	schema string
}

// answerSchemas names the schema of each operation's successful answer in
// the description (a list answer is an array of it), by method and path.
var answerSchemas = []answerSchema{
	{regexp.MustCompile(`^GET /repos/[^/]+/[^/]+/issues$`), "issue"},
	{regexp.MustCompile(`^POST /repos/[^/]+/[^/]+/issues$`), "issue"},
	{regexp.MustCompile(`^PATCH /repos/[^/]+/[^/]+/issues/\d+$`), "issue"},
	{regexp.MustCompile(`^(GET|POST) /repos/[^/]+/[^/]+/issues/\d+/comments$`), "issue-comment"},
	{regexp.MustCompile(`^GET /repos/[^/]+/[^/]+/issues/\d+/events$`), "issue-event-for-issue"},
	{regexp.MustCompile(`^GET /orgs/[^/]+/teams/[^/]+/memberships/[^/]+$`), "team-membership"},
}

// The fake answers in the description's shapes: each successful answer of
// a sink's life validates against its operation's schema.
func TestFakeAnswersFollowTheDescription(t *testing.T) {
	spec, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeGitHub(t)
	var mu sync.Mutex
	checked := map[string]int{} // answers checked, by schema
	check := func(op string, answer []byte) {
		i := slices.IndexFunc(answerSchemas, func(a answerSchema) bool { return a.op.MatchString(op) })
		if i < 0 {
			t.Errorf("%s: no schema for its answer", op)
			return
		}
		var v any
		if err := json.Unmarshal(answer, &v); err != nil {
			t.Errorf("%s: %v", op, err)
			return
		}
		vs, isList := v.([]any)
		if !isList {
			vs = []any{v}
		}
		for _, v := range vs {
			for _, e := range spec.ValidateValue(answerSchemas[i].schema, v) {
				t.Errorf("%s answers: %s", op, e)
			}
		}
		mu.Lock()
		checked[answerSchemas[i].schema]++
		mu.Unlock()
	}
	served := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		served.ServeHTTP(rec, r)
		if rec.Code/100 == 2 {
			check(r.Method+" "+strings.TrimPrefix(r.URL.Path, "/api/v3"), rec.Body.Bytes())
		}
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
	sinkLife(t, f)
	for _, a := range answerSchemas {
		if checked[a.schema] == 0 {
			t.Errorf("no answer checked against %s", a.schema)
		}
	}
	// and the check itself bites on a wrong shape
	var bad any
	_ = json.Unmarshal([]byte(`{"role":"member","state":"active"}`), &bad)
	if v := spec.ValidateValue("team-membership", bad); !strings.Contains(strings.Join(v, "\n"), `"url"`) {
		t.Errorf("a membership without its url validates: %v", v)
	}
}
