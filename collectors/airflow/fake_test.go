package airflow

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// fakeAirflow serves Airflow's real REST paths and JSON for one API
// version, from testdata/v1.json or testdata/v2.json (written field by
// field after the OpenAPI descriptions; TestFixturesFollowOpenAPI checks
// them). It pages like Airflow: limit/offset, capped at maxPage, with
// total_entries; and it authenticates like Airflow: basic auth on v1, a
// bearer JWT from POST /auth/token on v2.
type fakeAirflow struct {
	t        *testing.T
	version  string // "1" or "2"
	user     string
	password string
	maxPage  int

	store struct {
		DAGs      []json.RawMessage            `json:"dags"`
		Details   map[string]json.RawMessage   `json:"details"`
		Tasks     map[string][]json.RawMessage `json:"tasks"`
		DagRuns   []json.RawMessage            `json:"dag_runs"`
		Backfills []json.RawMessage            `json:"backfills"`
		// Deployment-wide listings (fake_resources_test.go).
		Pools       []json.RawMessage `json:"pools"`
		Connections []json.RawMessage `json:"connections"`
		Variables   []json.RawMessage `json:"variables"`
	}

	mu       sync.Mutex
	requests []*http.Request
	tokens   int               // tokens minted
	token    string            // the valid bearer token
	fail     map[string][]int  // path -> statuses to answer before succeeding
	failHdr  map[string]string // Retry-After sent with injected failures
	failAll  map[string]int    // path -> status always answered
	srv      *httptest.Server
	expireAt int // the token stops working after this many API calls (0: never)
	calls    int
	// misbehave answers a path (without query) with a hostile handler
	// instead of the fake's own answer.
	misbehave map[string]http.Handler
}

func newFakeAirflow(t *testing.T, version string) *fakeAirflow {
	t.Helper()
	f := &fakeAirflow{t: t, version: version, user: "bfaudit", password: "s3cret-pw", maxPage: 3,
		fail: map[string][]int{}, failHdr: map[string]string{}, failAll: map[string]int{}, misbehave: map[string]http.Handler{}}
	b, err := os.ReadFile(filepath.Join("testdata", "v"+version+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f.store); err != nil {
		t.Fatal(err)
	}
	// hostile.Server releases stalled handlers when the test ends.
	f.srv = hostile.Server(t, http.HandlerFunc(f.serve))
	return f
}

func (f *fakeAirflow) URL() string { return f.srv.URL }

// seen returns the requests made to a path (without query).
func (f *fakeAirflow) seen(path string) []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*http.Request
	for _, r := range f.requests {
		if r.URL.Path == path {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeAirflow) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	if h, ok := f.misbehave[r.URL.Path]; ok {
		f.mu.Unlock()
		h.ServeHTTP(w, r)
		return
	}
	if st, ok := f.failAll[r.URL.Path]; ok {
		f.mu.Unlock()
		f.problem(w, st, "injected failure")
		return
	}
	if sts := f.fail[r.URL.Path]; len(sts) > 0 {
		f.fail[r.URL.Path] = sts[1:]
		if ra := f.failHdr[r.URL.Path]; ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		f.mu.Unlock()
		f.problem(w, sts[0], "injected failure")
		return
	}
	f.mu.Unlock()

	prefix := "/api/v" + f.version
	switch {
	case r.URL.Path == "/api/v1/version" || r.URL.Path == "/api/v2/version":
		if r.URL.Path != prefix+"/version" {
			f.problem(w, http.StatusNotFound, "Not Found")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"version": map[string]string{"1": "2.10.5", "2": "3.1.0"}[f.version], "git_version": nil})
		return
	case r.URL.Path == "/auth/token" && f.version == "2":
		f.mintToken(w, r)
		return
	case !strings.HasPrefix(r.URL.Path, prefix+"/"):
		f.problem(w, http.StatusNotFound, "Not Found")
		return
	}
	if !f.authorized(r) {
		f.problem(w, http.StatusUnauthorized, "Not authenticated")
		return
	}
	path := strings.TrimPrefix(r.URL.Path, prefix)
	q := r.URL.Query()
	switch {
	case path == "/dags":
		if f.version == "1" && q.Get("only_active") != "false" || f.version == "2" && q.Get("exclude_stale") != "false" {
			f.t.Errorf("GET %s: stale DAGs not asked for: %s", r.URL.Path, r.URL.RawQuery)
		}
		f.page(w, r, "dags", f.store.DAGs)
	case strings.HasPrefix(path, "/dags/") && strings.HasSuffix(path, "/dagRuns"):
		f.listRuns(w, r, strings.TrimSuffix(strings.TrimPrefix(path, "/dags/"), "/dagRuns"))
	case path == "/backfills" && f.version == "2":
		f.listBackfills(w, r)
	case path == "/pools", path == "/connections", path == "/variables":
		f.listResources(w, r, strings.TrimPrefix(path, "/"))
	case strings.HasSuffix(path, "/details"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/dags/"), "/details")
		d, ok := f.store.Details[id]
		if !ok {
			f.problem(w, http.StatusNotFound, "DAG with dag_id: '"+id+"' not found")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(d)
	case strings.HasSuffix(path, "/tasks"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/dags/"), "/tasks")
		ts, ok := f.store.Tasks[id]
		if !ok {
			f.problem(w, http.StatusNotFound, "DAG with dag_id: '"+id+"' not found")
			return
		}
		body := map[string]any{"tasks": ts}
		if f.version == "2" {
			body["total_entries"] = len(ts)
		}
		writeJSON(w, http.StatusOK, body)
	default:
		f.problem(w, http.StatusNotFound, "Not Found")
	}
}

func (f *fakeAirflow) authorized(r *http.Request) bool {
	if f.version == "1" {
		u, p, ok := r.BasicAuth()
		return ok && u == f.user && p == f.password
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.expireAt > 0 && f.calls > f.expireAt && r.Header.Get("Authorization") == "Bearer "+f.token {
		f.expireAt, f.token = 0, "" // this token is now expired; mint a new one
		return false
	}
	return f.token != "" && r.Header.Get("Authorization") == "Bearer "+f.token
}

// mintToken is POST /auth/token: 201 with {"access_token"} for the right
// username and password, 401 otherwise.
func (f *fakeAirflow) mintToken(w http.ResponseWriter, r *http.Request) {
	var body struct{ Username, Password string }
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&body) != nil {
		f.problem(w, http.StatusUnprocessableEntity, "invalid body")
		return
	}
	if body.Username != f.user || body.Password != f.password {
		f.problem(w, http.StatusUnauthorized, "Invalid credentials")
		return
	}
	f.mu.Lock()
	f.tokens++
	f.token = "jwt-" + strconv.Itoa(f.tokens)
	tok := f.token
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]string{"access_token": tok})
}

func (f *fakeAirflow) listRuns(w http.ResponseWriter, r *http.Request, dagID string) {
	q := r.URL.Query()
	if f.version == "1" && q.Has("run_type") {
		// Airflow 2 validates query parameters strictly.
		f.problem(w, http.StatusBadRequest, "Extra query parameter(s) run_type not in spec")
		return
	}
	var kept []json.RawMessage
	for _, raw := range f.store.DagRuns {
		var run struct{ RunType, State, DagID string }
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		run.RunType, _ = m["run_type"].(string)
		run.State, _ = m["state"].(string)
		run.DagID, _ = m["dag_id"].(string)
		if dagID != "~" && run.DagID != dagID {
			continue
		}
		if types := q["run_type"]; len(types) > 0 && !slices.Contains(types, run.RunType) {
			continue
		}
		if states := q["state"]; len(states) > 0 && !slices.Contains(states, run.State) {
			continue
		}
		kept = append(kept, raw)
	}
	f.page(w, r, "dag_runs", kept)
}

func (f *fakeAirflow) listBackfills(w http.ResponseWriter, r *http.Request) {
	dagID := r.URL.Query().Get("dag_id")
	if dagID == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{
			{"type": "missing", "loc": []string{"query", "dag_id"}, "msg": "Field required"}}})
		return
	}
	var kept []json.RawMessage
	for _, raw := range f.store.Backfills {
		var b struct {
			DagID string `json:"dag_id"`
		}
		_ = json.Unmarshal(raw, &b)
		if b.DagID == dagID {
			kept = append(kept, raw)
		}
	}
	f.page(w, r, "backfills", kept)
}

// page answers one limit/offset page. Airflow caps limit at
// [api] maximum_page_limit; the fake caps lower so tests see many pages.
func (f *fakeAirflow) page(w http.ResponseWriter, r *http.Request, key string, all []json.RawMessage) {
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit <= 0 {
		limit = 50
	}
	limit = min(limit, f.maxPage)
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	lo, hi := min(offset, len(all)), min(offset+limit, len(all))
	items := all[lo:hi]
	if items == nil {
		items = []json.RawMessage{}
	}
	writeJSON(w, http.StatusOK, map[string]any{key: items, "total_entries": len(all)})
}

// problem answers an error in the version's shape: RFC 7807 on v1,
// HTTPExceptionResponse on v2.
func (f *fakeAirflow) problem(w http.ResponseWriter, status int, detail string) {
	if f.version == "1" {
		writeJSON(w, status, map[string]any{"type": "https://airflow.apache.org/docs/apache-airflow/2.10.5/stable-rest-api-ref.html#section/Errors",
			"title": http.StatusText(status), "status": status, "detail": detail})
		return
	}
	writeJSON(w, status, map[string]any{"detail": detail})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
