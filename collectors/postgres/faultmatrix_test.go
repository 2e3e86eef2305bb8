package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/postgres"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"github.com/jackc/pgx/v5"
)

// The fixture databases have fixed names: the matrix names the unit before
// the fixture exists. Units run one after the other, each creating and
// dropping its own.
const dbA, dbB = "bfm_pg_a", "bfm_pg_b"

// TestFaultMatrix runs against the real server, as a least-privileged
// login role: the whole source (CONNECT revoked on its only database),
// one database of two (CONNECT revoked), the cluster-wide roles (pg_roles
// unreadable) and one database's grants (aclexplode not executable).
func TestFaultMatrix(t *testing.T) {
	dsn := os.Getenv("BFAUDIT_TEST_PG_DSN")
	if dsn == "" {
		t.Skip("BFAUDIT_TEST_PG_DSN is unset; run with BFAUDIT_TEST_PG_DSN='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' (.ci/run sets it)")
	}
	unit := func(dbs []string, breakSQL string) func(t *testing.T) (collectors.Collector, func()) {
		return func(t *testing.T) (collectors.Collector, func()) {
			f := newFixture(t, dsn, dbs)
			return f.collector(t), func() { f.exec(t, dbA, breakSQL) }
		}
	}
	faultmatrix.Run(t, "postgres", []faultmatrix.Unit{
		{Kind: "source", Scope: "", Setup: unit([]string{dbA}, "REVOKE CONNECT ON DATABASE "+dbA+" FROM PUBLIC")},
		{Kind: "database", Scope: dbA, Setup: unit([]string{dbA, dbB}, "REVOKE CONNECT ON DATABASE "+dbA+" FROM PUBLIC")},
		{Kind: "roles", Scope: "roles", Setup: unit([]string{dbA}, "REVOKE SELECT ON pg_catalog.pg_roles FROM PUBLIC")},
		{Kind: "grants", Scope: dbA + "/grants", Setup: unit([]string{dbA}, "REVOKE EXECUTE ON FUNCTION pg_catalog.aclexplode(aclitem[]) FROM PUBLIC")},
	})
}

type fixture struct {
	admin  string // the test DSN (a superuser)
	dbs    []string
	reader string // the login role the collector uses
}

// newFixture creates the databases and, in the first, BF-7001's temp
// table (no expiry: BF005), a login role made for it (BF004), and a grant
// on the table to an analyst role (BF003).
func newFixture(t *testing.T, dsn string, dbs []string) *fixture {
	t.Helper()
	n := fmt.Sprint(rand.Int64N(1_000_000_000))
	f := &fixture{admin: dsn, dbs: dbs, reader: "bfm_reader_" + n}
	loader, analyst := "bf_7001_loader_"+n, "bfm_analyst_"+n
	t.Cleanup(func() {
		for _, db := range []string{dbA, dbB} {
			f.execQuiet(t, "", "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
		}
		f.execQuiet(t, "", "DROP ROLE IF EXISTS "+loader+", "+analyst+", "+f.reader)
	})
	for _, db := range []string{dbA, dbB} {
		f.execQuiet(t, "", "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
	}
	f.exec(t, "",
		"CREATE ROLE "+f.reader+" LOGIN",
		"CREATE ROLE "+loader+" LOGIN",
		"CREATE ROLE "+analyst+" NOLOGIN",
	)
	for _, db := range dbs {
		f.exec(t, "", "CREATE DATABASE "+db)
	}
	f.exec(t, dbA,
		"CREATE TABLE public.bf_7001_tmp (x int)",
		"GRANT SELECT, INSERT ON public.bf_7001_tmp TO "+analyst,
	)
	return f
}

func (f *fixture) collector(t *testing.T) *postgres.Postgres {
	t.Helper()
	u, err := url.Parse(f.admin)
	if err != nil || u.Host == "" {
		t.Skip("BFAUDIT_TEST_PG_DSN is not a URL; the matrix swaps its user and database")
	}
	u.User = url.User(f.reader)
	u.Path = "/" + f.dbs[0]
	p := &postgres.Postgres{DSN: u.String(), Databases: f.dbs, StatementTimeout: 5 * time.Second, Timeout: 10 * time.Second}
	if err := p.Init(collectors.Env{Source: "pg-matrix", Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return p
}

// exec runs statements as the admin in db ("" for the DSN's database).
func (f *fixture) exec(t *testing.T, db string, stmts ...string) {
	t.Helper()
	if err := f.run(db, stmts...); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) execQuiet(t *testing.T, db string, stmts ...string) {
	if err := f.run(db, stmts...); err != nil {
		t.Logf("cleanup: %v", err)
	}
}

func (f *fixture) run(db string, stmts ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conf, err := pgx.ParseConfig(f.admin)
	if err != nil {
		return err
	}
	if db != "" {
		conf.Database = db
	}
	conn, err := pgx.ConnectConfig(ctx, conf)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}
