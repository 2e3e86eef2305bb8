package remote

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Parallel calls reuse their connections: 8 workers making 200 calls open
// about 8 connections, not one per call as Go's default of two idle
// connections per host leads to.
func TestNewClientKeepsConnectionsForItsConcurrency(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := NewClient(ClientOptions{Conns: 8})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				resp, err := c.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				ReadAll(resp.Body, 1<<10)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	// About 8; a busy machine dials a few more when a call starts just
	// before another returns its connection. Go's default (two idle
	// connections kept) dials well over a hundred here.
	if n := conns.Load(); n > 40 {
		t.Errorf("%d connections for 200 calls by 8 workers, want about 8", n)
	}
}

func TestNewClientCAFileErrorsNameTheKey(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(bad, []byte("not a certificate"), 0o600)
	for _, f := range []string{bad, filepath.Join(t.TempDir(), "missing.pem")} {
		if _, err := NewClient(ClientOptions{TLS: TLS{CAFile: f}}); err == nil || !strings.HasPrefix(err.Error(), "ca_file: ") {
			t.Errorf("NewClient(ca_file %s) = %v, want an error naming ca_file", f, err)
		}
	}
}
