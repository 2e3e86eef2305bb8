package postgres

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// within runs f and fails the test if it has not returned in 20s: the
// collector under test has a 1s timeout and statement_timeout.
func within[T any](t *testing.T, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(20 * time.Second):
		t.Fatal("still running after 20s with a 1s timeout")
	}
	var zero T
	return zero
}

// hostileCollector points a collector at addr with the canary as the
// DSN's password and no connect_timeout, as a new user would write it.
func hostileCollector(t *testing.T, addr string) *Postgres {
	t.Helper()
	dsn := "postgres://postgres:" + hostile.Canary + "@" + addr + "/test?sslmode=prefer"
	return newCollector(t, dsn, func(p *Postgres) { p.Timeout, p.StatementTimeout = time.Second, time.Second })
}

func noCanary(t *testing.T, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, hostile.Canary) {
			t.Errorf("the password leaks: %s", s)
		}
	}
}

func TestSilentServerFailsTheSourceWithinTimeout(t *testing.T) {
	httpPort := hostile.Server(t, http.NotFoundHandler())
	tests := []struct{ name, addr string }{
		{"port accepts and never answers", hostile.AcceptAndStall(t)},
		{"DSN at an HTTP port", strings.TrimPrefix(httpPort.URL, "http://")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := hostileCollector(t, tt.addr)
			err := within(t, func() error { return collectors.Collect(context.Background(), p, collectors.NewTestSink()) })
			if err == nil || !strings.Contains(err.Error(), "test-pg") {
				t.Fatalf("Collect() = %v, want the source failed, naming it", err)
			}
			noCanary(t, err.Error())
			_, verr := within(t, func() verifyResult {
				v, err := p.Verify(context.Background(), model.Backfill{ID: "BF-1", ValidationQuery: "SELECT 1 AS count"})
				return verifyResult{v, err}
			}).unpack()
			var ve *collectors.VerifyError
			if !errors.As(verr, &ve) || ve.Scope != "test/validation/BF-1" {
				t.Fatalf("Verify() error = %v, want a VerifyError at test/validation/BF-1", verr)
			}
			noCanary(t, verr.Error())
		})
	}
}

type verifyResult struct {
	v   *model.Validation
	err error
}

func (r verifyResult) unpack() (*model.Validation, error) { return r.v, r.err }

func TestTimeoutsMustBePositive(t *testing.T) {
	for _, set := range []func(*Postgres){
		func(p *Postgres) { p.Timeout = 0 },
		func(p *Postgres) { p.Timeout = -time.Second },
		func(p *Postgres) { p.StatementTimeout = 0 },
		func(p *Postgres) { p.Timeout = 48 * time.Hour },
	} {
		p := &Postgres{DSN: "postgres://u@127.0.0.1:1/db", StatementTimeout: DefaultStatementTimeout, Timeout: DefaultTimeout}
		set(p)
		if err := p.Init(collectors.Env{}); err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("Init() = %v, want the timeout refused", err)
		}
	}
}

func TestConnectTimeoutDefault(t *testing.T) {
	p := &Postgres{DSN: "postgres://u@127.0.0.1:1/db", StatementTimeout: DefaultStatementTimeout, Timeout: 7 * time.Second}
	if err := p.Init(collectors.Env{}); err != nil || p.conf.ConnectTimeout != 7*time.Second {
		t.Errorf("Init() = %v, connect timeout %v, want the source's timeout when the DSN has none", err, p.conf.ConnectTimeout)
	}
	p = &Postgres{DSN: "postgres://u@127.0.0.1:1/db?connect_timeout=3", StatementTimeout: DefaultStatementTimeout, Timeout: 7 * time.Second}
	if err := p.Init(collectors.Env{}); err != nil || p.conf.ConnectTimeout != 3*time.Second {
		t.Errorf("Init() = %v, connect timeout %v, want the DSN's connect_timeout", err, p.conf.ConnectTimeout)
	}
}

// freezer relays TCP to the real server until it sees marker in what the
// client sends; from then on it forwards nothing, in either direction, on
// any connection: the server looks frozen (SIGSTOP) mid-query.
type freezer struct {
	addr   string
	frozen atomic.Bool
	stop   chan struct{}
}

func newFreezer(t *testing.T, target, marker string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{addr: ln.Addr().String(), stop: make(chan struct{})}
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		close(f.stop)
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			track(client)
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			track(server)
			go f.relay(client, server, []byte(marker))
			go f.relay(server, client, nil)
		}
	}()
	return f
}

func (f *freezer) relay(from, to net.Conn, marker []byte) {
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			if marker != nil && bytes.Contains(buf[:n], marker) {
				f.frozen.Store(true)
			}
			if f.frozen.Load() {
				<-f.stop
				return
			}
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				to.Close()
			}
			return
		}
	}
}

// frozenCollector reaches the real server through a freezer.
func frozenCollector(t *testing.T, marker string) (*Postgres, *freezer) {
	t.Helper()
	u, err := url.Parse(testDSN(t))
	if err != nil || u.Host == "" {
		t.Skipf("%s is not a URL with a host", dsnEnv)
	}
	fr := newFreezer(t, u.Host, marker)
	u.Host = fr.addr
	p := newCollector(t, u.String(), func(p *Postgres) { p.Timeout, p.StatementTimeout = time.Second, time.Second })
	return p, fr
}

func TestServerFrozenDuringCollectFailsWithinDeadline(t *testing.T) {
	p, fr := frozenCollector(t, "pg_namespace") // the first catalog query of a database
	sink := collectors.NewTestSink()
	err := within(t, func() error { return collectors.Collect(context.Background(), p, sink) })
	if !fr.frozen.Load() {
		t.Fatal("the server was never frozen: the marker did not pass")
	}
	db := p.Databases[0]
	if err != nil || len(sink.Errors) != 1 || sink.Errors[0].Scope != db {
		t.Fatalf("Collect() = %v, errors %+v; want one error at database %s", err, sink.Errors, db)
	}
	// Frozen from the start: connecting fails the source.
	err = within(t, func() error { return collectors.Collect(context.Background(), p, collectors.NewTestSink()) })
	if err == nil {
		t.Fatal("a frozen server read as an answer")
	}
}

func TestServerFrozenDuringValidationDegradesTheSource(t *testing.T) {
	p, fr := frozenCollector(t, "bfaudit_freeze_marker")
	res := within(t, func() verifyResult {
		v, err := p.Verify(context.Background(), model.Backfill{ID: "BF-9",
			ValidationQuery: "SELECT 1 AS count /* bfaudit_freeze_marker */"})
		return verifyResult{v, err}
	})
	if !fr.frozen.Load() {
		t.Fatal("the server was never frozen: the marker did not pass")
	}
	var ve *collectors.VerifyError
	if !errors.As(res.err, &ve) || ve.Scope != model.JoinScope(p.Databases[0], "validation", "BF-9") || !strings.Contains(res.err.Error(), "stopped answering") {
		t.Fatalf("Verify() = %+v, %v; want a VerifyError at test/validation/BF-9", res.v, res.err)
	}
	est := &model.Estate{Coverage: []model.Coverage{{Source: "test-pg", Status: model.CoverageOK}}}
	collectors.RecordVerifyError(est, "test-pg", res.err)
	if est.Coverage[0].Status != model.CoverageDegraded {
		t.Errorf("coverage %+v, want degraded", est.Coverage[0])
	}
}

// The validation query's connection is lost (its backend is terminated
// mid-query): before, this came back as Validation.Error with the source
// "ok" and the audit exiting 1.
func TestConnectionLostDuringValidationDegradesTheSource(t *testing.T) {
	dsn := testDSN(t)
	marker := "bfaudit_lost_" + uniqueN()
	admin := adminConn(t, dsn)
	killed := make(chan struct{})
	t.Cleanup(func() { <-killed }) // before the admin connection closes
	go func() {
		defer close(killed)
		for range 50 {
			time.Sleep(100 * time.Millisecond)
			var n int
			if admin.QueryRow(context.Background(), "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()", marker).Scan(&n) != nil || n > 0 {
				return
			}
		}
	}()
	p := newCollector(t, dsn)
	v, err := within(t, func() verifyResult {
		v, err := p.Verify(context.Background(), model.Backfill{ID: "BF-8",
			ValidationQuery: "SELECT count(*) AS count FROM pg_sleep(10) /* " + marker + " */"})
		return verifyResult{v, err}
	}).unpack()
	var ve *collectors.VerifyError
	if !errors.As(err, &ve) || ve.Scope != model.JoinScope(p.Databases[0], "validation", "BF-8") {
		t.Fatalf("Verify() = %+v, %v; want a VerifyError for the lost connection", v, err)
	}
}
