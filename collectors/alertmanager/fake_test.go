package alertmanager

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// fakeAM serves /api/v2/silences and /api/v2/alerts from raw JSON (by
// default the answers a real Alertmanager 0.25 gave, in testdata), and
// hands a path to another handler when told to misbehave there.
type fakeAM struct {
	mu        sync.Mutex
	silences  []byte
	alerts    []byte
	misbehave map[string]http.Handler
	auth      string // the Authorization header required, when set
	srv       *httptest.Server
}

func newFakeAM(t *testing.T) *fakeAM {
	t.Helper()
	f := &fakeAM{silences: readFile(t, "testdata/silences-0.25.json"), alerts: readFile(t, "testdata/alerts-0.25.json"),
		misbehave: map[string]http.Handler{}}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (f *fakeAM) URL() string { return f.srv.URL }

func (f *fakeAM) set(path string, h http.Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.misbehave[path] = h
}

func (f *fakeAM) setSilences(v any) {
	b, _ := json.Marshal(v)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.silences = b
}

func (f *fakeAM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	h, silences, alerts, auth := f.misbehave[r.URL.Path], f.silences, f.alerts, f.auth
	f.mu.Unlock()
	if h != nil {
		h.ServeHTTP(w, r)
		return
	}
	if auth != "" && r.Header.Get("Authorization") != auth {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"code": 401, "message": "Unauthorized"})
		return
	}
	switch r.URL.Path {
	case "/api/v2/silences":
		w.Header().Set("Content-Type", "application/json")
		w.Write(silences)
	case "/api/v2/alerts":
		if q := r.URL.Query(); q.Get("silenced") != "true" || q.Get("inhibited") != "true" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"code": 400, "message": "muted alerts must be asked for"})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(alerts)
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"code": 404, "message": "path " + r.URL.Path + " was not found"})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// status answers code with Alertmanager's error shape.
func status(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, code, map[string]any{"code": code, "message": "injected failure"})
	})
}

// newCollector reads url with instant retries and a short call timeout.
func newCollector(t *testing.T, url string) *Alertmanager {
	t.Helper()
	a := New()
	a.URL = url
	a.Timeout = 5 * time.Second
	a.Retry = remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := a.Init(env("am")); err != nil {
		t.Fatal(err)
	}
	return a
}
