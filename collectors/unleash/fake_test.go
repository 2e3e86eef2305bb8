package unleash

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
)

const testToken = "*:*.test-token-123456"

// fakeUnleash serves the Admin API paths the collector reads from files
// laid out as export_dir holds them (by default the answers of a real
// Unleash 7.5.1 in testdata/export): the search answer is paged by offset
// and limit as Unleash pages it (at most 100 a page). It requires the
// token alone as the Authorization header, and hands a path to another
// handler when told to misbehave there.
type fakeUnleash struct {
	mu        sync.Mutex
	files     map[string][]byte // export-relative path -> answer
	misbehave map[string]http.Handler
	requests  []string
	token     string // the Authorization header required
	srv       *httptest.Server
}

func newFake(t *testing.T) *fakeUnleash {
	t.Helper()
	return newFakeOf(t, "testdata/export")
}

// newFakeOf serves the export at root.
func newFakeOf(t *testing.T, root string) *fakeUnleash {
	t.Helper()
	f := &fakeUnleash{files: map[string][]byte{}, misbehave: map[string]http.Handler{}, token: testToken}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		f.files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeUnleash) URL() string { return f.srv.URL }

// set makes a path misbehave. For the flag search the key narrows it:
// "/api/admin/search/features" is the live search of a project,
// "...#archived" its archived search, "...#discover" (and
// "...#discover#archived") the search across projects for those the
// listing lacks; "@IS:<project>" after any of them names one project.
func (f *fakeUnleash) set(path string, h http.Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.misbehave[path] = h
}

// setJSON replaces one file of the export the fake serves.
func (f *fakeUnleash) setJSON(file string, v any) {
	b, _ := json.Marshal(v)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[file] = b
}

func (f *fakeUnleash) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Path
	projectFilter := r.URL.Query().Get("project")
	if key == "/api/admin/search/features" && !strings.HasPrefix(projectFilter, "IS:") {
		key += "#discover"
	}
	if r.URL.Query().Get("archived") == "IS:true" {
		key += "#archived"
	}
	f.mu.Lock()
	h, token := f.misbehave[key+"@"+projectFilter], f.token
	if h == nil {
		h = f.misbehave[key]
	}
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	f.mu.Unlock()
	if h != nil {
		h.ServeHTTP(w, r)
		return
	}
	if r.Header.Get("Authorization") != token {
		unleashError(w, http.StatusUnauthorized, "AuthenticationRequired", "You must log in to use Unleash.")
		return
	}
	path := r.URL.Path
	switch {
	case path == "/api/admin/projects":
		f.serve(w, "projects.json")
	case path == "/api/admin/environments":
		f.serve(w, "environments.json")
	case path == "/api/admin/search/features":
		f.search(w, r)
	case strings.HasPrefix(path, "/api/admin/projects/") && strings.HasSuffix(path, "/overview"):
		f.overview(w, strings.TrimSuffix(strings.TrimPrefix(path, "/api/admin/projects/"), "/overview"))
	case strings.HasPrefix(path, "/api/admin/projects/"):
		parts := strings.Split(strings.TrimPrefix(path, "/api/admin/projects/"), "/")
		if len(parts) != 3 || parts[1] != "features" {
			unleashError(w, http.StatusNotFound, "NotFoundError", "The path you were looking for is not available.")
			return
		}
		f.detail(w, parts[0], parts[2])
	default:
		unleashError(w, http.StatusNotFound, "NotFoundError", "The path you were looking for is not available.")
	}
}

func (f *fakeUnleash) serve(w http.ResponseWriter, file string) {
	f.mu.Lock()
	b, ok := f.files[file]
	f.mu.Unlock()
	if !ok {
		unleashError(w, http.StatusNotFound, "NotFoundError", "Could not find it")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// detail serves a flag's detail file, or else its entry of the project's
// features.json (which has what the collector reads of a detail, without
// strategies), or 404 as Unleash answers for an archived or unknown flag.
func (f *fakeUnleash) detail(w http.ResponseWriter, project, name string) {
	f.mu.Lock()
	b, ok := f.files["projects/"+project+"/features/"+name+".json"]
	list := f.files["projects/"+project+"/features.json"]
	f.mu.Unlock()
	if ok {
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	}
	var all struct {
		Features []json.RawMessage `json:"features"`
	}
	json.Unmarshal(list, &all)
	for _, raw := range all.Features {
		var e struct{ Name string }
		if json.Unmarshal(raw, &e) == nil && e.Name == name {
			w.Header().Set("Content-Type", "application/json")
			w.Write(raw)
			return
		}
	}
	unleashError(w, http.StatusNotFound, "NotFoundError", "Could not find feature flag with name "+name)
}

// overview answers for a project the export holds (listed or not), as
// Unleash 7.5.1 does, and 404 "No project found" for another.
func (f *fakeUnleash) overview(w http.ResponseWriter, project string) {
	f.mu.Lock()
	_, ok := f.files["projects/"+project+"/features.json"]
	f.mu.Unlock()
	if !ok {
		unleashError(w, http.StatusNotFound, "NotFoundError", "No project found")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": project, "description": "", "mode": "open"})
}

// search pages a project's features.json (or archived.json) as Unleash
// 7.5.1 does (a limit above 100 falls back to 50). project=IS_NONE_OF:a,b
// or no project filter searches across every project the export holds
// (its folders, listed or not), as Unleash's search does.
func (f *fakeUnleash) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name := "features.json"
	if q.Get("archived") == "IS:true" {
		name = "archived.json"
	}
	var files []string
	filter := q.Get("project")
	f.mu.Lock()
	if p, ok := strings.CutPrefix(filter, "IS:"); ok {
		files = []string{"projects/" + p + "/" + name}
	} else {
		var none []string
		if v, ok := strings.CutPrefix(filter, "IS_NONE_OF:"); ok {
			none = strings.Split(v, ",")
		} else if filter != "" {
			f.mu.Unlock()
			unleashError(w, http.StatusBadRequest, "BadDataError", "project must be IS:<id> or IS_NONE_OF:<ids>")
			return
		}
		for file := range f.files {
			rest, ok := strings.CutPrefix(file, "projects/")
			p, base, _ := strings.Cut(rest, "/")
			if ok && base == name && !slices.Contains(none, p) {
				files = append(files, file)
			}
		}
		sort.Strings(files)
	}
	var all struct {
		Features []json.RawMessage `json:"features"`
	}
	for _, file := range files {
		b, ok := f.files[file]
		if !ok {
			continue
		}
		var one struct {
			Features []json.RawMessage `json:"features"`
		}
		if err := json.Unmarshal(b, &one); err != nil {
			f.mu.Unlock()
			w.Write(b) // a malformed answer, served as it is
			return
		}
		all.Features = append(all.Features, one.Features...)
	}
	f.mu.Unlock()
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 || limit > 100 {
		limit = 50
	}
	offset, _ := strconv.Atoi(q.Get("offset"))
	page := []json.RawMessage{}
	if offset < len(all.Features) {
		page = all.Features[offset:min(offset+limit, len(all.Features))]
	}
	writeJSON(w, http.StatusOK, map[string]any{"features": page, "total": len(all.Features)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// unleashError answers in Unleash's error shape.
func unleashError(w http.ResponseWriter, status int, name, msg string) {
	writeJSON(w, status, map[string]any{"id": "0b6c3d4e", "name": name, "message": msg, "details": []any{map[string]string{"message": msg}}})
}

// status answers code with Unleash's error shape.
func status(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		unleashError(w, code, "InjectedError", "injected failure")
	})
}

// newCollector reads url with the test token, instant retries and a
// short call timeout.
func newCollector(t *testing.T, url string) *Unleash {
	t.Helper()
	t.Setenv("TEST_UNLEASH_TOKEN", testToken)
	u := New()
	u.URL, u.TokenEnv = url, "TEST_UNLEASH_TOKEN"
	u.Timeout = 5 * time.Second
	u.Retry = remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := u.Init(testEnv("unl")); err != nil {
		t.Fatal(err)
	}
	return u
}

// testEnv is what the audit hands a source named name.
func testEnv(name string) collectors.Env {
	return collectors.Env{Source: name, Selector: correlate.MustSelector(), Now: time.Now}
}

func decode(entry map[string]any) (collectors.Instance, error) {
	return collectors.Decode(entry, collectors.Env{})
}
