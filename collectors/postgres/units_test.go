package postgres

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/jackc/pgx/v5"
)

// Each artifact carries the unit that reported it, and each error names a
// unit artifacts carry: database (tables, schemas), database/grants, roles.
// When roles cannot be read, the grants a backfill role holds on ordinary
// tables are not listed either: that database's grants must not answer,
// or they would read as revoked.
func TestUnitsOfArtifactsAndErrors(t *testing.T) {
	dsn := testDSN(t)
	n := uniqueN()
	db, reader, loader := "bfaudit_units_"+n, "bfaudit_reader_"+n, "bf_"+n+"_loader"
	admin := adminConn(t, dsn)
	t.Cleanup(func() {
		admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
		admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+reader+", "+loader)
	})
	exec(t, admin, "CREATE ROLE "+reader+" LOGIN", "CREATE ROLE "+loader+" LOGIN", "CREATE DATABASE "+db)
	conf, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conf.Database = db
	inDB, err := pgx.ConnectConfig(context.Background(), conf)
	if err != nil {
		t.Fatal(err)
	}
	defer inDB.Close(context.Background())
	exec(t, inDB,
		"CREATE TABLE public.bf_"+n+"_tmp (x int)",
		"CREATE TABLE public.orders (x int)",
		"GRANT SELECT ON public.orders TO "+loader,
	)
	u, _ := url.Parse(withUser(t, dsn, url.User(reader)))
	u.Path = "/" + db
	p := newCollector(t, u.String())

	sink := collect(t, p)
	if len(sink.Errors) != 0 {
		t.Fatalf("errors %+v", sink.Errors)
	}
	want := map[string]string{
		"postgres://test-pg/" + db + "/public.bf_" + n + "_tmp":                  db,
		"postgres://test-pg/" + db + "/grant/" + loader + "/table/public.orders": db + "/grants",
		"postgres://test-pg/role/" + loader:                                      "roles",
	}
	for uri, scope := range want {
		if a := sink.Artifact(uri); a == nil || a.Scope != scope {
			t.Errorf("%s: %+v, want scope %q", uri, a, scope)
		}
	}

	exec(t, inDB, "REVOKE SELECT ON pg_catalog.pg_roles FROM PUBLIC")
	sink = collect(t, p)
	var scopes []string
	for _, e := range sink.Errors {
		scopes = append(scopes, e.Scope)
	}
	slices.Sort(scopes)
	if !slices.Equal(scopes, []string{db + "/grants", "roles"}) {
		t.Fatalf("error scopes %v, want the database's grants and roles", scopes)
	}
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	if !cov.Answered(db) || cov.Answered(db+"/grants") || cov.Answered("roles") {
		t.Errorf("answered: db %v, grants %v, roles %v; want only the tables", cov.Answered(db), cov.Answered(db+"/grants"), cov.Answered("roles"))
	}
}

// Every unit says what it read, machinery or not: the database its
// schemas and tables (orders too), its grants unit the grants concerning
// a backfill, roles every role of the cluster.
func TestReadsOfEveryUnit(t *testing.T) {
	dsn := testDSN(t)
	n := uniqueN()
	db, loader := "bfaudit_reads_"+n, "bf_"+n+"_loader"
	admin := adminConn(t, dsn)
	t.Cleanup(func() {
		admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
		admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+loader)
	})
	exec(t, admin, "CREATE ROLE "+loader+" LOGIN", "CREATE DATABASE "+db)
	conf, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conf.Database = db
	inDB, err := pgx.ConnectConfig(context.Background(), conf)
	if err != nil {
		t.Fatal(err)
	}
	defer inDB.Close(context.Background())
	exec(t, inDB,
		"CREATE TABLE public.bf_"+n+"_tmp (x int)",
		"CREATE TABLE public.orders (x int)",
		"CREATE TABLE public.customers (x int)",
		"CREATE SCHEMA sales",
		"GRANT SELECT ON public.orders TO "+loader,
		"GRANT SELECT, INSERT ON public.customers TO "+loader,
	)
	u, _ := url.Parse(dsn)
	u.Path = "/" + db
	sink := collect(t, newCollector(t, u.String()))
	if len(sink.Errors) != 0 {
		t.Fatalf("errors %+v", sink.Errors)
	}
	for _, r := range []struct {
		scope, what string
		read        int
	}{
		{db, "schemas", 2},
		{db, "tables", 3},
		{db + "/grants", "grants", 2},
		{"roles", "role memberships", 0},
	} {
		if got, p := sink.Read(r.scope, r.what); got != r.read || p != 0 {
			t.Errorf("%s: read %d %s (%d in part), want %d", r.scope, got, r.what, p, r.read)
		}
	}
	// Roles are the cluster's, which other tests make and drop meanwhile:
	// at least the DSN's user and the loader.
	if got, p := sink.Read("roles", "roles"); got < 2 || p != 0 {
		t.Errorf("roles: read %d roles (%d in part), want every role of the cluster", got, p)
	}
}

// The units are the cluster's roles, then each database, a '/' in its
// name escaped so it stays one segment; no server is needed to name them.
func TestUnitsDeclared(t *testing.T) {
	p := &Postgres{DSN: "postgres://u@127.0.0.1:1/db", Databases: []string{"sales", "a/b"}, StatementTimeout: DefaultStatementTimeout, Timeout: DefaultTimeout}
	if err := p.Init(collectors.Env{}); err != nil {
		t.Fatal(err)
	}
	units, err := p.Units(context.Background())
	if err != nil || !slices.Equal(units, []string{"roles", "sales", "a%2Fb"}) {
		t.Fatalf("Units() = %v, %v; want roles, then each database", units, err)
	}
	if db := p.database(units[2]); db != "a/b" {
		t.Errorf("unit %s reads database %q, want a/b", units[2], db)
	}
}

// A database named roles would share the roles' unit and never be read:
// Init refuses it rather than leave it out silently.
func TestDatabaseNamedRolesRefused(t *testing.T) {
	p := &Postgres{DSN: "postgres://u@127.0.0.1:1/roles", StatementTimeout: DefaultStatementTimeout, Timeout: DefaultTimeout}
	if err := p.Init(collectors.Env{}); err == nil || !strings.Contains(err.Error(), `database named "roles"`) {
		t.Errorf("Init() = %v, want the database named roles refused", err)
	}
}
