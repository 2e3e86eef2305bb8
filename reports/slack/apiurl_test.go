package slack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// api_url works with and without Slack's /api/ path (issue 13.8).
func TestAPIURLWithOrWithoutAPIPath(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat.postMessage" {
			http.NotFound(w, r)
			return
		}
		posts.Add(1)
		writeJSON(w, map[string]any{"ok": true, "channel": "C0LEADS", "ts": "1.000001"})
	}))
	t.Cleanup(srv.Close)
	for _, u := range []string{srv.URL, srv.URL + "/", srv.URL + "/api", srv.URL + "/api/"} {
		t.Run(u, func(t *testing.T) {
			before := posts.Load()
			s, err := New(Config{Channel: "#leads", Period: PeriodEvery, APIURL: u}, nil, nil, WithEnv(botEnv))
			if err != nil {
				t.Fatal(err)
			}
			if res, err := s.Post(context.Background(), estate(day(0), 1)); err != nil || !res.Posted {
				t.Fatalf("api_url %s: %+v, %v", u, res, err)
			}
			if posts.Load() == before {
				t.Error("nothing reached /api/chat.postMessage")
			}
		})
	}
}

// An error names the URL it called, without the credentials a proxy URL
// may carry, so "404 Not Found" says where.
func TestAPIErrorNamesTheURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	s, err := New(Config{Channel: "#leads", Period: PeriodEvery, APIURL: "http://proxyuser:pr0xy-pa55@" + host + "/slack"}, nil, nil, WithEnv(botEnv))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Post(context.Background(), estate(day(0), 1))
	if err == nil {
		t.Fatal("Post to a server that answers 404 succeeded")
	}
	if want := "http://" + host + "/slack/api/chat.postMessage"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "404") {
		t.Errorf("error %q does not name %s and its 404", err, want)
	}
	if strings.Contains(err.Error(), "pr0xy-pa55") || strings.Contains(err.Error(), "proxyuser") {
		t.Errorf("error shows the URL's credentials: %v", err)
	}
}
