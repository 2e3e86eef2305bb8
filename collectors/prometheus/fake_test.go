package prometheus

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// fakeProm serves GET /api/v1/rules from a list of groups. With paging on
// it pages as Prometheus 3 does: group_limit groups a page and an opaque
// groupNextToken naming the next group; without, it answers every group
// at once whatever is asked, as Prometheus 2 does.
type fakeProm struct {
	mu        sync.Mutex
	groups    []json.RawMessage
	paging    bool
	misbehave map[string]http.Handler
	asks      []string // the query of each rules call
	srv       *httptest.Server
}

func newFakeProm(t *testing.T, groups []json.RawMessage) *fakeProm {
	t.Helper()
	f := &fakeProm{groups: groups, misbehave: map[string]http.Handler{}}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

// realGroups are the groups a real Prometheus 2.42 answered (testdata).
func realGroups(t *testing.T) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile("testdata/rules-2.42.json")
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Data struct {
			Groups []json.RawMessage `json:"groups"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		t.Fatal(err)
	}
	return ans.Data.Groups
}

func (f *fakeProm) URL() string { return f.srv.URL }

func (f *fakeProm) set(path string, h http.Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.misbehave[path] = h
}

func (f *fakeProm) setGroups(gs []json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groups = gs
}

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	h, groups, paging := f.misbehave[r.URL.Path], f.groups, f.paging
	if r.URL.Path == "/api/v1/rules" {
		f.asks = append(f.asks, r.URL.RawQuery)
	}
	f.mu.Unlock()
	if h != nil {
		h.ServeHTTP(w, r)
		return
	}
	if r.URL.Path != "/api/v1/rules" {
		promError(w, http.StatusNotFound, "not_found", "no such path")
		return
	}
	data := map[string]any{"groups": groups}
	if paging {
		limit, err := strconv.Atoi(r.URL.Query().Get("group_limit"))
		if err != nil || limit < 1 {
			promError(w, http.StatusBadRequest, "bad_data", "group_limit needs to be a valid number")
			return
		}
		start := 0
		if tok := r.URL.Query().Get("group_next_token"); tok != "" {
			if start, err = strconv.Atoi(tok); err != nil || start >= len(groups) {
				promError(w, http.StatusBadRequest, "bad_data", "invalid group_next_token. were rule groups changed?")
				return
			}
		}
		end := min(start+limit, len(groups))
		data["groups"] = groups[start:end]
		if end < len(groups) {
			data["groupNextToken"] = strconv.Itoa(end)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": data})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// promError answers with Prometheus's error shape.
func promError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"status": "error", "errorType": typ, "error": msg})
}

func status(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		promError(w, code, "internal", "injected failure")
	})
}

// answer serves a fixed body.
func answer(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	})
}

// groupJSON builds one group of the listing.
func groupJSON(file, name string, rules ...map[string]any) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"name": name, "file": file, "rules": rules, "interval": 60})
	return b
}

func alertingJSON(name, query string, labels map[string]string) map[string]any {
	return map[string]any{"type": "alerting", "name": name, "query": query, "labels": labels, "annotations": map[string]string{},
		"state": "inactive", "health": "ok", "lastEvaluation": "2026-05-31T23:59:00Z", "alerts": []any{}}
}

// env is what the audit hands a source named source ("": no name) whose
// config file is in dir.
func env(source, dir string) collectors.Env {
	return collectors.Env{Source: source, Selector: correlate.MustSelector(), BaseDir: dir, Now: time.Now}
}

// newCollector reads url with instant retries and a short call timeout.
func newCollector(t *testing.T, url string) *Prometheus {
	t.Helper()
	p := New()
	p.URL = url
	p.Timeout = 5 * time.Second
	p.Retry = remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := p.Init(env("prom", "")); err != nil {
		t.Fatal(err)
	}
	return p
}
