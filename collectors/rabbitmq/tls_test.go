package rabbitmq

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
)

// tlsFront puts an https endpoint with its own certificate in front of
// the real management API. The first /api/queues request is answered
// 503 with Retry-After, as a broker under load does.
func tlsFront(t *testing.T, b broker) (srv *httptest.Server, caFile string, throttled *atomic.Int32) {
	t.Helper()
	target := *b.api
	target.User = nil
	proxy := httputil.NewSingleHostReverseProxy(&target)
	throttled = &atomic.Int32{}
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/queues") && throttled.CompareAndSwap(0, 1) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":"service_unavailable"}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, caFile, throttled
}

func TestTLS(t *testing.T) {
	b := testBroker(t)
	f := newFixture(t, b)
	tests := []struct {
		name    string
		ca      bool
		skip    bool
		wantErr string
	}{
		{name: "private CA from ca_file", ca: true},
		{name: "insecure_skip_verify", skip: true},
		{name: "unknown CA is refused", wantErr: "certificate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, caFile, throttled := tlsFront(t, b)
			u := strings.Replace(srv.URL, "https://", "https://"+b.api.User.String()+"@", 1)
			r := newCollector(t, b, func(r *RabbitMQ) {
				r.URL = u
				r.InsecureSkipVerify = tc.skip
				if tc.ca {
					r.CAFile = caFile
				}
			})
			sink := collectors.NewTestSink()
			err := collectors.Collect(context.Background(), r, sink)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err=%v, want it to mention %q", err, tc.wantErr)
				}
				if pw, _ := b.api.User.Password(); strings.Contains(err.Error(), b.api.User.Username()+":"+pw) {
					t.Errorf("error leaks credentials: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Collect: %v", err)
			}
			if throttled.Load() != 1 {
				t.Errorf("the 503 was never served")
			}
			if sink.Artifact(f.queueURI(f.retry)) == nil {
				t.Errorf("backfill queue not collected through TLS after a 503")
			}
		})
	}
}
