package history

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/hostile"
)

// A PostgreSQL history store at a port that accepts and never answers, or
// at an HTTP port, fails Open within its connect deadline: before, the
// DSN without connect_timeout hung the audit.
func TestOpenPostgresSilentServerFails(t *testing.T) {
	defer func(c, s time.Duration) { pgConnectTimeout, pgStatementTimeout = c, s }(pgConnectTimeout, pgStatementTimeout)
	pgConnectTimeout, pgStatementTimeout = time.Second, time.Second
	web := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(web.Close)
	tests := []struct{ name, addr, schema string }{
		{"accepts and stalls", hostile.AcceptAndStall(t), ""},
		{"accepts and stalls, with a schema to create", hostile.AcceptAndStall(t), "bfaudit_hist"},
		{"an HTTP port", web.Listener.Addr().String(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host, port, _ := net.SplitHostPort(tt.addr)
			cfg := Config{Driver: DriverPostgres, Schema: tt.schema,
				DSN: "postgres://bfaudit:" + hostile.Canary + "@" + host + ":" + port + "/history?sslmode=prefer"}
			done := make(chan error, 1)
			go func() {
				s, err := Open(context.Background(), cfg)
				if err == nil {
					s.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "history") {
					t.Fatalf("Open() = %v, want a failure naming the history store", err)
				}
				if strings.Contains(err.Error(), hostile.Canary) {
					t.Errorf("error leaks the password: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Open still running after 20s with a 1s connect deadline")
			}
		})
	}
}
