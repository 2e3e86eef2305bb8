package notebooks

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
)

const fakeToken = "fake-jupyter-token-5b1d"

// fakeJupyter serves the contents API from a tree of notebooks, as
// jupyter_server answers it, and refuses a request without the token in
// "Authorization: token <t>".
type fakeJupyter struct {
	srv      *httptest.Server
	mu       sync.Mutex
	files    map[string][]byte       // path -> notebook JSON
	override map[string]http.Handler // path (API path) -> misbehaviour
}

func newFakeJupyter(t *testing.T) *fakeJupyter {
	f := &fakeJupyter{files: map[string][]byte{}, override: map[string]http.Handler{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeJupyter) URL() string { return f.srv.URL }

func (f *fakeJupyter) put(path string, nb []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = nb
}

func (f *fakeJupyter) set(apiPath string, h http.Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.override[apiPath] = h
}

func (f *fakeJupyter) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "token "+fakeToken {
		http.Error(w, `{"message": "Forbidden", "reason": null}`, http.StatusForbidden)
		return
	}
	f.mu.Lock()
	h := f.override[r.URL.Path]
	f.mu.Unlock()
	if h != nil {
		h.ServeHTTP(w, r)
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/api/contents")
	if !ok || r.Method != http.MethodGet || r.URL.Query().Get("content") != "1" {
		http.Error(w, `{"message": "not found"}`, http.StatusNotFound)
		return
	}
	path = strings.Trim(path, "/")
	f.mu.Lock()
	defer f.mu.Unlock()
	mod := "2026-01-07T10:00:00.123456Z"
	if nb, ok := f.files[path]; ok {
		if !json.Valid(nb) {
			// jupyter_server answers 400 for an unreadable notebook.
			http.Error(w, `{"message": "Unreadable Notebook: `+path+` NotJSONError('Notebook does not appear to be JSON')", "reason": null}`, http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]any{"name": base(path), "path": path, "type": "notebook", "format": "json",
			"last_modified": mod, "content": json.RawMessage(nb)})
		return
	}
	var entries []map[string]any
	seen := map[string]bool{}
	for p := range f.files {
		rest, ok := strings.CutPrefix(p, path+"/")
		if path == "" {
			rest, ok = p, true
		}
		if !ok {
			continue
		}
		name, _, isDir := strings.Cut(rest, "/")
		child := strings.TrimPrefix(path+"/"+name, "/")
		if seen[child] {
			continue
		}
		seen[child] = true
		typ := "notebook"
		if isDir {
			typ = "directory"
		}
		entries = append(entries, map[string]any{"name": name, "path": child, "type": typ, "last_modified": mod, "content": nil, "format": nil})
	}
	if entries == nil && path != "" {
		http.Error(w, `{"message": "No such file or directory: `+path+`"}`, http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]any{"name": base(path), "path": path, "type": "directory", "format": "json",
		"last_modified": mod, "content": entries})
}

func base(p string) string { return p[strings.LastIndex(p, "/")+1:] }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func status(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"message": "boom"}`, code)
	})
}

// jupyterCollector reads url with the fake's token, without retry waits.
func jupyterCollector(t *testing.T, url string) *Notebooks {
	t.Helper()
	t.Setenv("TEST_JUPYTER_TOKEN", fakeToken)
	n := New()
	n.JupyterURL, n.TokenEnv = url, "TEST_JUPYTER_TOKEN"
	n.Retry = remote.RetryPolicy{Attempts: 1}
	n.Timeout = 2 * time.Second
	if err := n.Init(env("jup", "")); err != nil {
		t.Fatal(err)
	}
	return n
}
