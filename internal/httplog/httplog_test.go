package httplog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
)

func TestWrapLogsEachCall(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx := WithLogger(context.Background(), l)
	c := &http.Client{Transport: Wrap(nil)}
	for _, path := range []string{"/ok?token=s3cret-value", "/missing"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	// Without a logger in the context, nothing is logged.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/quiet", nil)
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 log lines, got %d:\n%s", len(lines), buf.String())
	}
	want := []struct {
		url    string
		status float64
	}{{srv.URL + "/ok?token=[REDACTED]", 200}, {srv.URL + "/missing", 404}}
	for i, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["level"] != "DEBUG" || rec["method"] != "GET" || rec["url"] != want[i].url || rec["status"] != want[i].status {
			t.Errorf("line %d = %v, want GET %s %v at DEBUG", i, rec, want[i].url, want[i].status)
		}
		if _, ok := rec["duration"]; !ok {
			t.Errorf("line %d has no duration: %s", i, line)
		}
	}
	if strings.Contains(buf.String(), "s3cret-value") {
		t.Error("a secret query value was logged")
	}
}

func TestLogSaysTheError(t *testing.T) {
	redact.Add("Bearer-tok3n-value")
	defer redact.Reset()
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	req, _ := http.NewRequest(http.MethodPost, "https://api.example.com/x", nil)
	Log(WithLogger(context.Background(), l), req, nil, errors.New("dial: refused for Bearer-tok3n-value"), 1500*time.Millisecond)
	out := buf.String()
	for _, s := range []string{"method=POST", "url=https://api.example.com/x", "refused", "duration=1.5s"} {
		if !strings.Contains(out, s) {
			t.Errorf("log lacks %q: %s", s, out)
		}
	}
	if strings.Contains(out, "tok3n") {
		t.Errorf("secret in the log: %s", out)
	}
}

// A logger above debug level logs nothing (and costs no clock reads).
func TestQuietAboveDebug(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	req, _ := http.NewRequest(http.MethodGet, "https://api.example.com/x", nil)
	Log(WithLogger(context.Background(), l), req, &http.Response{StatusCode: 200}, nil, time.Second)
	if buf.Len() != 0 {
		t.Errorf("logged at info level: %s", buf.String())
	}
}

// A source's warning reaches the run's logger at any level; without one
// there is nothing to log to.
func TestFromContext(t *testing.T) {
	if FromContext(context.Background()) != nil {
		t.Error("a logger from a context without one")
	}
	l := slog.New(slog.DiscardHandler)
	if FromContext(WithLogger(context.Background(), l)) != l {
		t.Error("the run's logger is not found")
	}
}
