package gcp

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/api/option"

	"github.com/bfaudit/bfaudit/internal/httplog"
)

// --verbose: calls through the Google API client are logged.
func TestHTTPClientLogsCalls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer srv.Close()
	hc, err := HTTPClient(context.Background(), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ctx := httplog.WithLogger(context.Background(), slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/bigquery/v2/projects/p/datasets", nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if out := buf.String(); !strings.Contains(out, "url="+srv.URL+"/bigquery/v2/projects/p/datasets") || !strings.Contains(out, "status=200") {
		t.Errorf("call not logged:\n%s", out)
	}
}
