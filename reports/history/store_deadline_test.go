package history

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/jackc/pgx/v5"

	"github.com/bfaudit/bfaudit/testkit/hostile"
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

// A PostgreSQL server that freezes after the store opened (SIGSTOP, a
// dead network path) fails the next statement within the read deadline:
// before, Record waited as long as the run's own deadline allowed, and
// statement_timeout, enforced by the frozen server, did nothing.
func TestPostgresFrozenAfterOpenFailsRecord(t *testing.T) {
	dsn := os.Getenv(pgEnv)
	if dsn == "" {
		t.Skipf("PostgreSQL store tests skipped: set %s", pgEnv)
	}
	defer func(r time.Duration) { pgReadTimeout = r }(pgReadTimeout)
	pgReadTimeout = time.Second
	pc, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newFreezingProxy(t, net.JoinHostPort(pc.Host, strconv.Itoa(int(pc.Port))))
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = proxy.addr
	t.Setenv("BFAUDIT_TEST_PG_FROZEN_DSN", u.String())

	eachBackend(t, func(t *testing.T, cfg Config) {
		if cfg.Driver != DriverPostgres {
			t.Skip("a frozen server is a PostgreSQL case")
		}
		cfg.DSNEnv = "BFAUDIT_TEST_PG_FROZEN_DSN"
		s := openStore(t, cfg)
		proxy.freeze()
		done := make(chan error, 1)
		go func() {
			done <- s.Record(context.Background(), report(day(0), okCoverage("inv"),
				finding("BF001", "BF-1", "bq://p/d/t", "inv", "", model.SeverityHigh)))
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("Record on a frozen server succeeded")
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Record still waiting on a frozen server 20s after it froze, with a 1s read deadline")
		}
	})
}

// freezingProxy forwards TCP to a real server until frozen; then it keeps
// every connection open and passes nothing, as a stopped server does.
type freezingProxy struct {
	addr   string
	frozen chan struct{}
	mu     sync.Mutex
}

func newFreezingProxy(t *testing.T, target string) *freezingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezingProxy{addr: ln.Addr().String(), frozen: make(chan struct{})}
	var conns []net.Conn
	var cmu sync.Mutex
	t.Cleanup(func() {
		ln.Close()
		cmu.Lock()
		for _, c := range conns {
			c.Close()
		}
		cmu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			cmu.Lock()
			conns = append(conns, c, up)
			cmu.Unlock()
			go p.pipe(up, c)
			go p.pipe(c, up)
		}
	}()
	return p
}

func (p *freezingProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			frozen := p.frozen
			p.mu.Unlock()
			select {
			case <-frozen:
				return // swallow everything from now on, keep the socket open
			default:
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *freezingProxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.frozen)
}
