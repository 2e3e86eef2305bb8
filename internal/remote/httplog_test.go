package remote

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/internal/httplog"
)

// --verbose: every attempt DoHTTP makes is logged, retries included.
func TestDoHTTPLogsEachAttempt(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	var buf bytes.Buffer
	ctx := httplog.WithLogger(context.Background(), slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	resp, err := DoHTTP(ctx, srv.Client(), RetryPolicy{Attempts: 2, Base: 1}, func() (*http.Request, error) {
		return http.NewRequest(http.MethodGet, srv.URL+"/api/v1/dags?limit=100", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	out := buf.String()
	for _, want := range []string{"status=502", "status=200", "method=GET", `url="` + srv.URL + `/api/v1/dags?limit=100"`, "duration="} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "http call") != 2 {
		t.Errorf("want 2 calls logged:\n%s", out)
	}
}
