package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/jackc/pgx/v5"
)

const dsnEnv = "BFAUDIT_TEST_PG_DSN"

// testNow is the injected clock: tests never depend on today's date.
var testNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// testDSN returns the DSN of the real server, or skips.
func testDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		t.Skipf("%s is unset; run against a real server with e.g. %s='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' go test ./collectors/postgres/ (.ci/run sets it)", dsnEnv, dsnEnv)
	}
	return dsn
}

// adminConn connects as the DSN's (privileged) user to build fixtures.
func adminConn(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", dsnEnv, err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// exec runs fixture statements, failing the test on the first error.
func exec(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// cleanup runs statements at the end of the test, ignoring errors so one
// missing object does not leave the others behind.
func cleanup(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Cleanup(func() {
		for _, s := range stmts {
			if _, err := conn.Exec(context.Background(), s); err != nil {
				t.Logf("cleanup %s: %v", s, err)
			}
		}
	})
}

// uniqueN is a random number for object names and backfill ids, so
// parallel and repeated runs do not collide on the shared server.
func uniqueN() string { return fmt.Sprint(rand.Int64N(1_000_000_000)) }

// newCollector builds an initialised collector for dsn, as Decode would.
func newCollector(t *testing.T, dsn string, mods ...func(*Postgres)) *Postgres {
	t.Helper()
	p := &Postgres{DSN: dsn, StatementTimeout: DefaultStatementTimeout, Timeout: DefaultTimeout}
	for _, m := range mods {
		m(p)
	}
	env := collectors.Env{Source: "test-pg", Selector: correlate.MustSelector(), Now: func() time.Time { return testNow }}
	if err := p.Init(env); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return p
}

// collect reads the source as the audit does and fails on a returned error.
func collect(t *testing.T, p *Postgres) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), p, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return sink
}

// withUser returns dsn with its user (and password) replaced.
func withUser(t *testing.T, dsn string, user *url.Userinfo) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Skipf("%s is not a URL; this test needs the URL form to swap the user", dsnEnv)
	}
	u.User = user
	return u.String()
}

// database returns the DSN's database name.
func database(t *testing.T, dsn string) string {
	t.Helper()
	conf, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse %s: %v", dsnEnv, err)
	}
	return conf.Database
}
