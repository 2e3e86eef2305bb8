package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// pgSystem acts on a PostgreSQL source with pgx, the collector's driver,
// connecting as the source's DSN says (the collector's sessions are read
// only; these are not). Objects are looked up in the catalog by the name
// the artifact carries, and the statement is built from the catalog's
// names, so a schema.table split the URI leaves ambiguous is resolved by
// the server, or refused.
type pgSystem struct {
	conf *pgx.ConnConfig
}

func newPostgres(p *Postgres) (*pgSystem, error) {
	dsn := p.DSN
	if p.DSNEnv != "" {
		dsn = os.Getenv(p.DSNEnv)
	}
	conf, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, errors.New("dsn: cannot be parsed as a PostgreSQL URL or key=value string")
	}
	if conf.ConnectTimeout <= 0 {
		conf.ConnectTimeout = DefaultTimeout
	}
	if conf.RuntimeParams == nil {
		conf.RuntimeParams = map[string]string{}
	}
	conf.RuntimeParams["application_name"] = "bfaudit fix"
	conf.RuntimeParams["statement_timeout"] = fmt.Sprint(DefaultStatementTimeout.Milliseconds())
	// A DROP waits on other sessions' locks; it must not wait forever.
	conf.RuntimeParams["lock_timeout"] = "10000"
	return &pgSystem{conf: conf}, nil
}

func (s *pgSystem) connect(ctx context.Context, db string) (*pgx.Conn, error) {
	conf := s.conf.Copy()
	if db != "" {
		conf.Database = db
	}
	conn, err := pgx.ConnectConfig(ctx, conf)
	if err != nil {
		return nil, fmt.Errorf("connect to database %q: %w", conf.Database, err)
	}
	return conn, nil
}

// pgTarget is an object as the catalog names it.
type pgTarget struct {
	found        bool
	schema, name string
	object       string // relkind mapped as the collector does, or schema
	state        map[string]string
}

const pgRelationQuery = `
SELECT n.nspname, c.relname, CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned_table' WHEN 'v' THEN 'view'
         WHEN 'm' THEN 'materialized_view' WHEN 'f' THEN 'foreign_table' WHEN 'S' THEN 'sequence' ELSE c.relkind::text END,
       coalesce((SELECT string_agg(a.privilege_type, ',' ORDER BY a.privilege_type) FROM aclexplode(c.relacl) a
                 WHERE a.grantee = $2::oid), '')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname || '.' || c.relname = $1`

const pgSchemaQuery = `
SELECT n.nspname, coalesce((SELECT string_agg(a.privilege_type, ',' ORDER BY a.privilege_type) FROM aclexplode(n.nspacl) a
                 WHERE a.grantee = $2::oid), '')
FROM pg_namespace n WHERE n.nspname = $1`

// granteeOID is the role's oid, 0 for PUBLIC; ok false when the role is
// gone.
func granteeOID(ctx context.Context, conn *pgx.Conn, name string) (uint32, bool, error) {
	if name == "PUBLIC" {
		return 0, true, nil
	}
	var oid uint32
	err := conn.QueryRow(ctx, `SELECT oid FROM pg_roles WHERE rolname = $1`, name).Scan(&oid)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return oid, err == nil, err
}

// lookup finds the artifact's object in the catalog.
func (s *pgSystem) lookup(ctx context.Context, conn *pgx.Conn, o PGObject) (pgTarget, error) {
	switch {
	case o.Object == "role":
		var login bool
		var until pgtype.Timestamptz
		err := conn.QueryRow(ctx, `SELECT rolcanlogin, rolvaliduntil FROM pg_roles WHERE rolname = $1`, o.Name).Scan(&login, &until)
		if errors.Is(err, pgx.ErrNoRows) {
			return pgTarget{}, nil
		}
		if err != nil {
			return pgTarget{}, err
		}
		st := map[string]string{"login": fmt.Sprint(login), "valid_until": ""}
		if until.Valid && until.InfinityModifier == pgtype.Finite {
			st["valid_until"] = until.Time.UTC().Format(time.RFC3339)
		}
		return pgTarget{found: true, name: o.Name, object: "role", state: st}, nil
	case o.Object == "membership":
		var admin bool
		err := conn.QueryRow(ctx, `SELECT m.admin_option FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
			JOIN pg_roles u ON u.oid = m.member WHERE r.rolname = $1 AND u.rolname = $2`, o.Name, o.Grantee).Scan(&admin)
		if errors.Is(err, pgx.ErrNoRows) {
			return pgTarget{}, nil
		}
		if err != nil {
			return pgTarget{}, err
		}
		return pgTarget{found: true, name: o.Name, object: "membership", state: map[string]string{}}, nil
	}
	var grantee uint32
	if o.Grant {
		oid, ok, err := granteeOID(ctx, conn, o.Grantee)
		if err != nil || !ok {
			return pgTarget{}, err
		}
		grantee = oid
	}
	var rows []pgTarget
	if o.Object == "schema" {
		var t pgTarget
		var privs string
		err := conn.QueryRow(ctx, pgSchemaQuery, o.Schema, grantee).Scan(&t.schema, &privs)
		if errors.Is(err, pgx.ErrNoRows) {
			return pgTarget{}, nil
		}
		if err != nil {
			return pgTarget{}, err
		}
		t.found, t.object = true, "schema"
		t.state = map[string]string{"object": "schema"}
		if o.Grant {
			t.state = map[string]string{"privileges": privs}
		}
		return t, nil
	}
	r, err := conn.Query(ctx, pgRelationQuery, o.Schema+"."+o.Name, grantee)
	if err != nil {
		return pgTarget{}, err
	}
	for r.Next() {
		var t pgTarget
		var privs string
		if err := r.Scan(&t.schema, &t.name, &t.object, &privs); err != nil {
			r.Close()
			return pgTarget{}, err
		}
		t.found = true
		t.state = map[string]string{"object": t.object}
		if o.Grant {
			t.state = map[string]string{"privileges": privs}
		}
		rows = append(rows, t)
	}
	r.Close()
	if err := r.Err(); err != nil {
		return pgTarget{}, err
	}
	switch len(rows) {
	case 0:
		return pgTarget{}, nil
	case 1:
		return rows[0], nil
	}
	return pgTarget{}, fmt.Errorf("%q names %d objects (a '.' in a schema or table name): act on it by hand", o.Schema+"."+o.Name, len(rows))
}

func (s *pgSystem) object(a *model.Artifact) (PGObject, error) {
	o, ok := ParsePostgres(a)
	if !ok {
		return o, fmt.Errorf("postgres: %s is not an artifact bfaudit can act on", a.URI)
	}
	return o, nil
}

func (s *pgSystem) Read(ctx context.Context, a *model.Artifact, act remedy.Action) (remedy.Observed, error) {
	o, err := s.object(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	conn, err := s.connect(ctx, act.Database)
	if err != nil {
		return remedy.Observed{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	t, err := s.lookup(ctx, conn, o)
	if err != nil {
		return remedy.Observed{}, err
	}
	// A grant whose privileges are all gone is gone.
	if o.Grant && o.Object != "membership" && t.found && t.state["privileges"] == "" {
		t.found = false
	}
	return remedy.Observed{Found: t.found, State: t.state}, nil
}

func (s *pgSystem) Expected(a *model.Artifact, act remedy.Action) map[string]string {
	o, _ := ParsePostgres(a)
	switch {
	case o.Object == "role":
		until := ""
		if t := a.TimeAttr(model.AttrValidUntil); !t.IsZero() {
			until = t.UTC().Format(time.RFC3339)
		}
		return map[string]string{"login": a.Attr(model.AttrLogin), "valid_until": until}
	case o.Object == "membership":
		return map[string]string{}
	case o.Grant:
		privs := slices.Clone(o.Privileges)
		slices.Sort(privs)
		return map[string]string{"privileges": strings.Join(privs, ",")}
	}
	return map[string]string{"object": o.Object}
}

// Act runs the statement on the object as the catalog names it, in a
// transaction that looks it up again under the statement's own lock.
func (s *pgSystem) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	o, err := s.object(a)
	if err != nil {
		return err
	}
	conn, err := s.connect(ctx, act.Database)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	t, err := s.lookup(ctx, conn, o)
	if err != nil || !t.found {
		return err
	}
	exact := o
	exact.Schema, exact.Ambiguous = t.schema, false
	if o.Object != "role" && o.Object != "membership" && o.Object != "schema" {
		exact.Name = t.name
	}
	var sql string
	switch act.Name {
	case remedy.ExpireRole:
		sql = exact.ExpireRoleSQL()
	case remedy.RevokeGrant:
		sql, err = exact.RevokeSQL()
	case remedy.DropTable:
		exact.Object = t.object
		sql, err = exact.DropSQL()
	default:
		err = fmt.Errorf("postgres: no %s", act.Name)
	}
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	if act.Name == remedy.RevokeGrant && o.Object != "membership" {
		// REVOKE takes back only what this role (or, for a superuser, the
		// owner) granted; privileges another grantor gave stay, silently.
		after, err := s.lookup(ctx, conn, o)
		if err != nil {
			return err
		}
		if left := after.state["privileges"]; after.found && left != "" {
			return fmt.Errorf("%s ran, but %s still holds %s (granted by another role): revoke as that role", sql, o.Grantee, left)
		}
	}
	return nil
}
