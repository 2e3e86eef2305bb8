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

// Parallel calls reuse their connections: two rounds of 8 calls held open
// at once need 8 connections, not 14 as Go's default of two idle
// connections per host gives (the second round dials 6 again). The server
// holds each round's calls until all 8 arrived, so every round really
// runs 8 at once.
func TestNewClientKeepsConnectionsForItsConcurrency(t *testing.T) {
	const workers = 8
	var conns atomic.Int64
	var round sync.WaitGroup
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		round.Done()
		round.Wait()
		w.Write([]byte("{}"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := NewClient(ClientOptions{Conns: workers})
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 2; r++ {
		round.Add(workers)
		var calls sync.WaitGroup
		for w := 0; w < workers; w++ {
			calls.Add(1)
			go func() {
				defer calls.Done()
				resp, err := c.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				ReadAll(resp.Body, 1<<10)
				resp.Body.Close()
			}()
		}
		calls.Wait()
	}
	if n := conns.Load(); n != workers {
		t.Errorf("%d connections for two rounds of %d calls at once, want %d", n, workers, workers)
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
