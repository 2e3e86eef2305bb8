package postgres

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// fixture is a small estate of backfill machinery in the real server.
type fixture struct {
	n, id, db string
	// names
	commented, named, plain, schema, inSchema string
	loader, oldRole, analyst                  string
}

// newFixture creates, for one random backfill id:
//   - a table tied by COMMENT (with expires and owner), 3 rows, analyzed;
//   - a table tied by name only; an unrelated table;
//   - a schema tied by COMMENT, with a table that inherits its backfill;
//   - a login role by name with no VALID UNTIL, an expired login role tied
//     by COMMENT ON ROLE, and an unrelated analyst role;
//   - grants on backfill objects to the analyst, a grant the loader holds on
//     the unrelated table, and the analyst role granted to the loader.
func newFixture(t *testing.T, dsn string) fixture {
	t.Helper()
	n := uniqueN()
	f := fixture{
		n: n, id: "BF-" + n, db: database(t, dsn),
		commented: "bfaudit_t_" + n + "_events",
		named:     "bf_" + n + "_tmp",
		plain:     "bfaudit_plain_" + n,
		schema:    "bfaudit_s_" + n,
		loader:    "bf_" + n + "_loader",
		oldRole:   "bfaudit_r_" + n + "_old",
		analyst:   "bfaudit_r_" + n + "_analyst",
	}
	f.inSchema = f.schema + ".copy"
	conn := adminConn(t, dsn)
	cleanup(t, conn,
		"DROP TABLE IF EXISTS public."+f.commented+", public."+f.named+", public."+f.plain,
		"DROP SCHEMA IF EXISTS "+f.schema+" CASCADE",
		"DROP OWNED BY "+f.loader+", "+f.oldRole+", "+f.analyst,
		"DROP ROLE IF EXISTS "+f.loader+", "+f.oldRole+", "+f.analyst,
	)
	exec(t, conn,
		"CREATE TABLE public."+f.commented+" (day date, v int)",
		"COMMENT ON TABLE public."+f.commented+" IS 'copy of events backfill_id="+f.id+" expires=2026-03-01 owner=alice'",
		"INSERT INTO public."+f.commented+" SELECT DATE '2026-01-01' + g, g FROM generate_series(1, 3) g",
		"ANALYZE public."+f.commented,
		"CREATE TABLE public."+f.named+" (x int)",
		"CREATE TABLE public."+f.plain+" (x int)",
		"CREATE SCHEMA "+f.schema,
		"COMMENT ON SCHEMA "+f.schema+" IS 'backfill_id="+f.id+"'",
		"CREATE TABLE "+f.inSchema+" (x int)",
		"CREATE ROLE "+f.loader+" LOGIN",
		"CREATE ROLE "+f.oldRole+" LOGIN VALID UNTIL '2020-01-01 00:00:00+00'",
		"COMMENT ON ROLE "+f.oldRole+" IS 'backfill_id="+f.id+" owner=bob'",
		"CREATE ROLE "+f.analyst+" NOLOGIN",
		"GRANT SELECT ON public."+f.commented+" TO "+f.analyst,
		"GRANT INSERT, SELECT ON public."+f.plain+" TO "+f.loader,
		"GRANT USAGE ON SCHEMA "+f.schema+" TO "+f.analyst+" WITH GRANT OPTION",
		"GRANT "+f.analyst+" TO "+f.loader,
	)
	return f
}

func (f fixture) uri(parts ...string) string {
	return "postgres://test-pg/" + strings.Join(parts, "/")
}

func TestCollectBackfillMachinery(t *testing.T) {
	dsn := testDSN(t)
	f := newFixture(t, dsn)
	sink := collect(t, newCollector(t, dsn))
	if len(sink.Errors) > 0 {
		t.Fatalf("unexpected scope errors: %+v", sink.Errors)
	}
	checkFixture(t, f, sink)
}

// checkFixture asserts what a user would read in the inventory; shared by
// the superuser and least-privilege runs.
func checkFixture(t *testing.T, f fixture, sink *collectors.TestSink) {
	t.Helper()
	get := func(t *testing.T, uri string) *model.Artifact {
		t.Helper()
		a := sink.Artifact(uri)
		if a == nil {
			t.Fatalf("no artifact %s; got %d artifacts", uri, len(sink.Artifacts))
		}
		return a
	}
	t.Run("table tied by comment carries expiry, owner, size", func(t *testing.T) {
		a := get(t, f.uri(f.db, "public."+f.commented))
		want := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		if a.Kind != model.KindTable || a.BackfillID != f.id || a.Correlation != "label" || !a.ExpiresAt.Time().Equal(want) || a.Owner != "alice" {
			t.Errorf("got kind=%s id=%s how=%s expires=%s owner=%s", a.Kind, a.BackfillID, a.Correlation, a.ExpiresAt, a.Owner)
		}
		if a.Scope != f.db || a.State != model.StateActive {
			t.Errorf("scope=%q state=%q, want %q active", a.Scope, a.State, f.db)
		}
		if a.Attr(model.AttrRows) != "3" {
			t.Errorf("rows=%q, want 3", a.Attr(model.AttrRows))
		}
		if b, ok := a.IntAttr(model.AttrBytes); !ok || b <= 0 {
			t.Errorf("bytes=%q, want > 0", a.Attr(model.AttrBytes))
		}
		if a.Labels.Get("backfill_id") != f.id || a.Labels.Get("expires") != "2026-03-01" {
			t.Errorf("labels=%v", a.Labels)
		}
		if a.Attr(attrLastAnalyzed) == "" {
			t.Errorf("last_analyzed missing after ANALYZE: %v", a.Attributes)
		}
	})
	t.Run("table tied by name has no expiry", func(t *testing.T) {
		a := get(t, f.uri(f.db, "public."+f.named))
		if a.Correlation != "name" || !model.SameID(a.BackfillID, f.id) || !a.ExpiresAt.IsZero() {
			t.Errorf("how=%s id=%s expires=%s", a.Correlation, a.BackfillID, a.ExpiresAt)
		}
	})
	t.Run("table in a backfill schema inherits its backfill", func(t *testing.T) {
		a := get(t, f.uri(f.db, f.inSchema))
		if a.BackfillID != f.id || a.Correlation != "label" {
			t.Errorf("id=%s how=%s", a.BackfillID, a.Correlation)
		}
		s := get(t, f.uri(f.db, f.schema))
		if s.Kind != model.KindTable || s.Attr(attrObject) != "schema" {
			t.Errorf("schema artifact kind=%s object=%s", s.Kind, s.Attr(attrObject))
		}
	})
	t.Run("unrelated table is not machinery", func(t *testing.T) {
		if a := sink.Artifact(f.uri(f.db, "public."+f.plain)); a != nil {
			t.Errorf("unrelated table emitted: %+v", a)
		}
	})
	t.Run("login role without VALID UNTIL is not time-bound", func(t *testing.T) {
		a := get(t, f.uri("role", f.loader))
		if a.Kind != model.KindCredential || a.State != model.StateActive || !a.BoolAttr(model.AttrLogin) ||
			a.Attr(model.AttrTimeBound) != "false" || !a.ExpiresAt.IsZero() || a.Correlation != "name" {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("role past VALID UNTIL is expired and time-bound", func(t *testing.T) {
		a := get(t, f.uri("role", f.oldRole))
		want := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		if a.State != model.StateExpired || !a.ExpiresAt.Time().Equal(want) || a.Attr(model.AttrValidUntil) != "2020-01-01T00:00:00Z" ||
			a.Attr(model.AttrTimeBound) != "true" || a.BackfillID != f.id || a.Owner != "bob" {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("unrelated role is not a credential", func(t *testing.T) {
		if a := sink.Artifact(f.uri("role", f.analyst)); a != nil {
			t.Errorf("analyst role emitted: %+v", a)
		}
	})
	t.Run("grant on a backfill table to another role", func(t *testing.T) {
		a := get(t, f.uri(f.db, "grant", f.analyst, "table", "public."+f.commented))
		if a.Kind != model.KindGrant || a.BackfillID != f.id || a.Attr(model.AttrPrincipal) != f.analyst ||
			a.Attr(model.AttrRole) != "SELECT" || a.Attr(model.AttrTimeBound) != "false" {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("grant a backfill role holds on an unrelated table", func(t *testing.T) {
		a := get(t, f.uri(f.db, "grant", f.loader, "table", "public."+f.plain))
		if a.Attr(model.AttrRole) != "INSERT,SELECT" || !model.SameID(a.BackfillID, f.id) || a.Correlation != "name" {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("schema grant with grant option", func(t *testing.T) {
		a := get(t, f.uri(f.db, "grant", f.analyst, "schema", f.schema))
		if a.Attr(model.AttrRole) != "USAGE" || a.Attr(attrGrantable) != "USAGE" || a.BackfillID != f.id {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("membership of a backfill role", func(t *testing.T) {
		a := get(t, f.uri("grant", f.loader, "role", f.analyst))
		if a.Kind != model.KindGrant || a.Attr(model.AttrRole) != f.analyst || a.Attr(model.AttrPrincipal) != f.loader {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("one artifact per grantee and object", func(t *testing.T) {
		seen := map[string]int{}
		for _, a := range sink.Artifacts {
			seen[a.URI]++
		}
		for uri, c := range seen {
			if c > 1 {
				t.Errorf("%s emitted %d times", uri, c)
			}
		}
	})
}

func TestCollectAsLeastPrivilegedRole(t *testing.T) {
	dsn := testDSN(t)
	f := newFixture(t, dsn)
	auditor := "bfaudit_auditor_" + f.n
	conn := adminConn(t, dsn)
	cleanup(t, conn, "DROP ROLE IF EXISTS "+auditor)
	// Catalog access is public; pg_read_all_stats is the README's optional
	// extra. No privilege on any table is granted.
	exec(t, conn, "CREATE ROLE "+auditor+" LOGIN IN ROLE pg_read_all_stats")
	sink := collect(t, newCollector(t, withUser(t, dsn, url.User(auditor))))
	if len(sink.Errors) > 0 {
		t.Fatalf("least-privileged role got scope errors: %+v", sink.Errors)
	}
	checkFixture(t, f, sink)
}

func TestCollectFailures(t *testing.T) {
	dsn := testDSN(t)
	n := uniqueN()
	t.Run("wrong credentials fail the source, naming it, hiding the password", func(t *testing.T) {
		password := "hunter2-" + n
		p := newCollector(t, withUser(t, dsn, url.UserPassword("bfaudit_nobody_"+n, password)))
		err := collectors.Collect(context.Background(), p, collectors.NewTestSink())
		if err == nil {
			t.Fatal("Collect succeeded with a role that does not exist")
		}
		if !strings.Contains(err.Error(), "test-pg") || strings.Contains(err.Error(), password) {
			t.Errorf("error should name source test-pg and hide the password: %v", err)
		}
	})
	t.Run("an unreadable database degrades only its scope", func(t *testing.T) {
		f := newFixture(t, dsn)
		missing := "bfaudit_missing_" + n
		sink := collect(t, newCollector(t, dsn, func(p *Postgres) { p.Databases = []string{missing, f.db} }))
		if len(sink.Errors) != 1 || sink.Errors[0].Scope != missing {
			t.Fatalf("want one error scoped to %s, got %+v", missing, sink.Errors)
		}
		if sink.Artifact(f.uri(f.db, "public."+f.commented)) == nil {
			t.Errorf("the readable database was not collected")
		}
		if sink.Artifact(f.uri("role", f.loader)) == nil {
			t.Errorf("roles were not collected from the readable database")
		}
	})
}
