package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func noSleep(waits *[]time.Duration) func(context.Context, time.Duration) error {
	return func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }
}

func TestDoHTTPRetriesAndHonoursRetryAfter(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	var waits []time.Duration
	p := RetryPolicy{Base: time.Second, Sleep: noSleep(&waits)}
	resp, err := DoHTTP(context.Background(), srv.Client(), p, func() (*http.Request, error) { return http.NewRequest("GET", srv.URL, nil) })
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if calls.Load() != 3 || len(waits) != 2 || waits[0] != 7*time.Second || waits[1] != 2*time.Second {
		t.Errorf("calls=%d waits=%v, want 3 calls, waits [7s (Retry-After) 2s (backoff)]", calls.Load(), waits)
	}
}

func TestDoHTTPGivesUpAndRedacts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.Error(w, "not here", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	var waits []time.Duration
	p := RetryPolicy{Attempts: 3, Sleep: noSleep(&waits)}
	u := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1)
	_, err := DoHTTP(context.Background(), nil, p, func() (*http.Request, error) { return http.NewRequest("GET", u+"/x?token=s3cret", nil) })
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") || !strings.Contains(err.Error(), "HTTP 502") {
		t.Errorf("err = %v", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("secret leaked into the error: %v", err)
	}
	_, err = DoHTTP(context.Background(), nil, p, func() (*http.Request, error) { return http.NewRequest("GET", srv.URL+"/missing", nil) })
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 404 || len(waits) != 2 {
		t.Errorf("a 404 is not retried: err=%v waits=%v", err, waits)
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}
	if got := RetryAfter(h, now); got != 90*time.Second {
		t.Errorf("got %v", got)
	}
}
