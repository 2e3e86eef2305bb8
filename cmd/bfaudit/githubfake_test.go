package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/swagger"
)

// ghFake is the part of GitHub's issues API the audit command uses, at its
// real Enterprise paths and JSON shapes, with state in memory. failWrites,
// when set, answers every write with that status. Every request it
// receives is checked against GitHub's description, as the sink's own
// fake does (reports/github/testdata/README.md); one it does not allow
// fails the test.
type ghFake struct {
	srv        *httptest.Server
	mu         sync.Mutex
	issues     []*ghFakeIssue
	failWrites int
	comments   []string
	// wrote, when set, is called after a write was kept and before it is
	// answered: a test kills the audit there.
	wrote func()
}

type ghFakeIssue struct {
	Number    int    `json:"number"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	State     string `json:"state"`
	Labels    []string
	Assignees []string
}

func newGHFake(t *testing.T) *ghFake {
	spec, err := swagger.Load("../../reports/github/testdata/github-api-extract.json")
	if err != nil {
		t.Fatal(err)
	}
	// The description is written for api.github.com: the check sees the
	// path without the Enterprise prefix, serve the request as it came.
	rec := &swagger.Recorder{Spec: spec, Prefix: "/api/v3"}
	f := &ghFake{}
	f.srv = httptest.NewServer(rec.Wrap(http.HandlerFunc(f.serve)))
	t.Cleanup(func() {
		f.srv.Close()
		for _, v := range rec.Violations() {
			t.Errorf("contract: %s", v)
		}
	})
	return f
}

func (f *ghFake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	const base = "/api/v3/repos/acme/cleanup/issues"
	path := r.URL.Path
	if r.Method != http.MethodGet && f.failWrites != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.failWrites)
		w.Write([]byte(`{"message":"Service Unavailable"}`))
		return
	}
	switch {
	case r.Method == http.MethodGet && path == base:
		out := []map[string]any{}
		for _, is := range f.issues {
			out = append(out, f.json(is))
		}
		writeFakeJSON(w, http.StatusOK, out)
	case r.Method == http.MethodPost && path == base:
		var req struct {
			Title, Body       string
			Labels, Assignees []string
		}
		json.NewDecoder(r.Body).Decode(&req)
		is := &ghFakeIssue{Number: len(f.issues) + 1, Title: req.Title, Body: req.Body, State: "open", Labels: req.Labels, Assignees: req.Assignees}
		f.issues = append(f.issues, is)
		f.written()
		writeFakeJSON(w, http.StatusCreated, f.json(is))
	case strings.HasPrefix(path, base+"/") && strings.HasSuffix(path, "/comments") && r.Method == http.MethodGet:
		// Every comment, whatever the issue: the markers CommentOnce looks
		// for name the finding, so the issue does not matter here.
		list := []map[string]any{}
		for i, c := range f.comments {
			list = append(list, map[string]any{"id": i + 1, "body": c})
		}
		writeFakeJSON(w, http.StatusOK, list)
	case strings.HasPrefix(path, base+"/") && strings.HasSuffix(path, "/comments"):
		var req struct{ Body string }
		json.NewDecoder(r.Body).Decode(&req)
		f.comments = append(f.comments, req.Body)
		f.written()
		writeFakeJSON(w, http.StatusCreated, map[string]any{"id": len(f.comments), "body": req.Body})
	case strings.HasPrefix(path, base+"/") && r.Method == http.MethodPatch:
		n, _ := strconv.Atoi(strings.TrimPrefix(path, base+"/"))
		if n < 1 || n > len(f.issues) {
			http.NotFound(w, r)
			return
		}
		is := f.issues[n-1]
		var req struct {
			Title, Body, State *string
			Labels, Assignees  *[]string
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Title != nil {
			is.Title = *req.Title
		}
		if req.Body != nil {
			is.Body = *req.Body
		}
		if req.State != nil {
			is.State = *req.State
		}
		if req.Labels != nil {
			is.Labels = *req.Labels
		}
		if req.Assignees != nil {
			is.Assignees = *req.Assignees
		}
		f.written()
		writeFakeJSON(w, http.StatusOK, f.json(is))
	default:
		http.NotFound(w, r)
	}
}

func (f *ghFake) json(is *ghFakeIssue) map[string]any {
	labels := []map[string]any{}
	for _, l := range is.Labels {
		labels = append(labels, map[string]any{"name": l})
	}
	assignees := []map[string]any{}
	for _, a := range is.Assignees {
		assignees = append(assignees, map[string]any{"login": a})
	}
	return map[string]any{"number": is.Number, "title": is.Title, "body": is.Body, "state": is.State,
		"labels": labels, "assignees": assignees,
		"html_url": fmt.Sprintf("https://github.example/acme/cleanup/issues/%d", is.Number)}
}

// written runs the wrote hook (f.mu held).
func (f *ghFake) written() {
	if f.wrote != nil {
		f.wrote()
	}
}

func writeFakeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// snapshot copies the issues, keyed by the backfill id in their title.
func (f *ghFake) snapshot() map[string]ghFakeIssue {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]ghFakeIssue{}
	for _, is := range f.issues {
		for _, id := range []string{"BF-1234", "BF-2001", "BF-3100", "BF-4242", "BF-4400"} {
			if strings.Contains(is.Title, id) {
				out[id] = *is
			}
		}
	}
	return out
}
