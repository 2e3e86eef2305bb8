package remedy_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
	"github.com/jackc/pgx/v5"
)

const pgEnv = "BFAUDIT_TEST_PG_DSN"

// pgTest connects to the test server and returns the environment psql
// needs to reach it; it skips without a server or psql.
func pgTest(t *testing.T) (*pgx.Conn, []string, string) {
	t.Helper()
	dsn := os.Getenv(pgEnv)
	if dsn == "" {
		t.Skipf("PostgreSQL tests skipped: set %s, e.g. %s='postgres://postgres@127.0.0.1:5432/test?sslmode=disable'", pgEnv, pgEnv)
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql not installed: the rendered SQL is run through it")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	c := conn.Config()
	env := []string{"PGHOST=" + c.Host, "PGPORT=" + strconv.Itoa(int(c.Port)), "PGUSER=" + c.User, "PGPASSWORD=" + c.Password, "PGSSLMODE=prefer"}
	return conn, env, c.Database
}

// runPsql runs a rendered script with the real sh and psql, in a fresh
// directory, and fails if a name broke out of its quoting.
func runPsql(t *testing.T, env []string, script string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", "set -eu\n"+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("script failed: %v\n%s\nscript:\n%s", err, out, script)
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, "pwned*")); len(ents) > 0 {
		t.Fatalf("a name broke out of its quoting: %v\nscript:\n%s", ents, script)
	}
}

// Identifiers and literals round-trip through the real server, and the
// DROP, REVOKE and ALTER ROLE that remedies render, run by sh and psql,
// act on exactly the named object.
func TestSQLAgainstPostgres(t *testing.T) {
	conn, env, db := pgTest(t)
	ctx := context.Background()
	schema := remedytest.RandomTag(t)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+remedy.Ident(schema)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = conn.Exec(context.Background(), "DROP SCHEMA "+remedy.Ident(schema)+" CASCADE") })
	for i, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			for _, scs := range []string{"off", "on"} {
				if _, err := conn.Exec(ctx, "SET standard_conforming_strings = "+scs); err != nil {
					t.Fatal(err)
				}
				var got string
				if err := conn.QueryRow(ctx, "SELECT "+remedy.Literal(name)).Scan(&got); err != nil || got != name {
					t.Errorf("literal with standard_conforming_strings %s: %q, %v", scs, got, err)
				}
			}
			table := fmt.Sprintf("t%d %s", i, name)
			role := fmt.Sprintf("%s_%d %s", schema, i, name)
			for _, stmt := range []string{
				"CREATE TABLE " + remedy.Qualified(schema, table) + " (id int)",
				"CREATE ROLE " + remedy.Ident(role) + " LOGIN",
				"GRANT SELECT, INSERT ON TABLE " + remedy.Qualified(schema, table) + " TO " + remedy.Ident(role),
			} {
				if _, err := conn.Exec(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			t.Cleanup(func() {
				_, _ = conn.Exec(context.Background(), "DROP OWNED BY "+remedy.Ident(role)+"; DROP ROLE IF EXISTS "+remedy.Ident(role))
			})
			var rel string
			if err := conn.QueryRow(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`, schema, table).Scan(&rel); err != nil || rel != table {
				t.Fatalf("identifier did not round-trip: %q, %v", rel, err)
			}

			esc := url.PathEscape
			grant := model.Artifact{Kind: model.KindGrant, System: "postgres",
				URI:        "postgres://w/" + esc(db) + "/grant/" + esc(role) + "/table/" + esc(schema+"."+table),
				Attributes: model.TagsOf(map[string]string{model.AttrPrincipal: role, model.AttrRole: "INSERT,SELECT", "object": "table"})}
			cred := model.Artifact{Kind: model.KindCredential, System: "postgres", URI: "postgres://w/role/" + esc(role)}
			tbl := model.Artifact{Kind: model.KindTable, System: "postgres", URI: "postgres://w/" + esc(db) + "/" + esc(schema+"."+table),
				Attributes: model.TagsOf(map[string]string{"object": "table"})}
			for _, c := range []struct {
				build remedy.Builder
				a     model.Artifact
			}{{remedy.Remove(model.StepAccessRevoked), grant}, {remedy.Remove(model.StepAccessRevoked), cred}, {remedy.Remove(model.StepRetired), tbl}} {
				r, ok := remedy.BuildWith(c.build, model.Finding{}, remedy.Facts{Artifact: &c.a})
				if !ok {
					t.Fatalf("%s: no remedy", c.a.URI)
				}
				runPsql(t, env, r.Actions[0].Shell)
			}
			var privs, login bool
			var expired *bool
			if err := conn.QueryRow(ctx, `SELECT rolcanlogin, rolvaliduntil <= now() FROM pg_roles WHERE rolname = $1`, role).Scan(&login, &expired); err != nil {
				t.Fatal(err)
			}
			if login || expired == nil || !*expired {
				t.Errorf("role %q: login %v, valid until passed %v", role, login, expired)
			}
			if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2)`, schema, table).Scan(&privs); err != nil || privs {
				t.Errorf("table %q still there (%v)", table, err)
			}
		})
	}
}

// REVOKE takes exactly the privileges the grant artifact holds, on the
// named object only: a neighbour with a similar name keeps its grant.
func TestRevokeLeavesNeighbours(t *testing.T) {
	conn, env, db := pgTest(t)
	ctx := context.Background()
	schema := remedytest.RandomTag(t)
	role := schema + "_loader"
	for _, stmt := range []string{
		"CREATE SCHEMA " + remedy.Ident(schema),
		"CREATE TABLE " + remedy.Qualified(schema, "a;b") + " (id int)",
		"CREATE TABLE " + remedy.Qualified(schema, "a") + " (id int)",
		"CREATE ROLE " + remedy.Ident(role),
		"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA " + remedy.Ident(schema) + " TO " + remedy.Ident(role),
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP SCHEMA "+remedy.Ident(schema)+" CASCADE; DROP OWNED BY "+remedy.Ident(role)+"; DROP ROLE "+remedy.Ident(role))
	})
	a := model.Artifact{Kind: model.KindGrant, System: "postgres",
		URI:        "postgres://w/" + url.PathEscape(db) + "/grant/" + url.PathEscape(role) + "/table/" + url.PathEscape(schema+".a;b"),
		Attributes: model.TagsOf(map[string]string{model.AttrRole: "INSERT,SELECT", "object": "table"})}
	r, _ := remedy.BuildWith(remedy.Remove(model.StepAccessRevoked), model.Finding{}, remedy.Facts{Artifact: &a})
	runPsql(t, env, r.Actions[0].Shell)
	for table, want := range map[string]bool{"a;b": false, "a": true} {
		var has bool
		if err := conn.QueryRow(ctx, `SELECT has_table_privilege($1, $2, 'SELECT')`, role, remedy.Qualified(schema, table)).Scan(&has); err != nil {
			t.Fatal(err)
		}
		if has != want {
			t.Errorf("%s on %q: SELECT = %v, want %v", role, table, has, want)
		}
	}
}
