package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/jackc/pgx/v5"
)

// grantsQuery lists the privileges on backfill tables and schemas ($1, $3)
// and those held by backfill roles anywhere in the database ($2). ACLs are
// public catalog columns, so no extra privilege is needed. The owner's own
// privileges are implicit, not grants, and are left out.
const grantsQuery = `
SELECT CASE WHEN c.relkind = 'S' THEN 'sequence' ELSE 'table' END, c.oid, n.nspname, c.relname,
       a.grantee, a.privilege_type, a.is_grantable
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL aclexplode(c.relacl) a
WHERE c.relacl IS NOT NULL AND a.grantee <> c.relowner
  AND (c.oid = ANY($1::oid[]) OR a.grantee = ANY($2::oid[]))
UNION ALL
SELECT 'schema', n.oid, n.nspname, '', a.grantee, a.privilege_type, a.is_grantable
FROM pg_namespace n
CROSS JOIN LATERAL aclexplode(n.nspacl) a
WHERE n.nspacl IS NOT NULL AND a.grantee <> n.nspowner
  AND (n.oid = ANY($3::oid[]) OR a.grantee = ANY($2::oid[]))`

// grant is every privilege one grantee holds on one object: one artifact,
// so revoking them all is one finding resolved.
type grant struct {
	objType, schema, object string
	objOID, grantee         uint32
	privileges, grantable   []string
}

// collectGrants emits one artifact per grantee and object. The backfill is
// the object's when the object is backfill machinery, else the grantee's.
func (p *Postgres) collectGrants(ctx context.Context, conn *pgx.Conn, db string, objs backfillObjects, roles *roleSet, sink collectors.Sink) error {
	var roleOIDs []uint32
	if roles != nil {
		roleOIDs = roles.matched
	}
	if len(objs.tables) == 0 && len(objs.schemas) == 0 && len(roleOIDs) == 0 {
		sink.AddRead(grantsScope(db), "grants", 0, 0) // none can concern a backfill
		return nil
	}
	rows, done, err := p.query(ctx, conn, grantsQuery, objs.tableOIDs(), nonNil(roleOIDs), objs.schemaOIDs())
	if err != nil {
		return fmt.Errorf("postgres source %s: list grants in database %q: %w", p.sourceName(), db, err)
	}
	defer done()
	grants := map[string]*grant{}
	var order []string
	for rows.Next() {
		var g grant
		var priv string
		var grantable bool
		if err := rows.Scan(&g.objType, &g.objOID, &g.schema, &g.object, &g.grantee, &priv, &grantable); err != nil {
			rows.Close()
			return fmt.Errorf("postgres source %s: read grants in database %q: %w", p.sourceName(), db, err)
		}
		key := fmt.Sprintf("%s/%d/%d", g.objType, g.objOID, g.grantee)
		have, ok := grants[key]
		if !ok {
			have = &g
			grants[key] = have
			order = append(order, key)
		}
		have.privileges = append(have.privileges, priv)
		if grantable {
			have.grantable = append(have.grantable, priv)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres source %s: list grants in database %q: %w", p.sourceName(), db, err)
	}
	sink.AddRead(grantsScope(db), "grants", len(order), 0)
	for _, key := range order {
		sink.AddArtifact(p.grantArtifact(db, grants[key], objs, roles))
	}
	return nil
}

func (p *Postgres) grantArtifact(db string, g *grant, objs backfillObjects, roles *roleSet) model.Artifact {
	grantee := roles.name(g.grantee)
	object, m := g.schema, objs.schemas[g.objOID]
	if g.objType != "schema" {
		object, m = g.schema+"."+g.object, objs.tables[g.objOID]
	}
	if !m.ok() {
		m = roles.matchOf(g.grantee)
	}
	slices.Sort(g.privileges)
	slices.Sort(g.grantable)
	a := model.Artifact{
		Kind:        model.KindGrant,
		Scope:       grantsScope(db),
		URI:         p.grantURI(db, grantee, g.objType, object),
		Name:        strings.Join(g.privileges, ",") + " on " + g.objType + " " + object + " to " + grantee,
		BackfillID:  m.id,
		Correlation: m.how,
		State:       model.StateActive,
	}
	a.SetAttr(model.AttrPrincipal, grantee)
	a.SetAttr(model.AttrRole, strings.Join(g.privileges, ","))
	// PostgreSQL grants carry no expiry; a role's VALID UNTIL limits only
	// password logins, not what the role may do once connected.
	a.SetAttr(model.AttrTimeBound, "false")
	a.SetAttr(attrObject, g.objType)
	if len(g.grantable) > 0 {
		a.SetAttr(attrGrantable, strings.Join(g.grantable, ","))
	}
	return a
}

// nonNil makes a nil slice an empty array, since ANY(NULL) matches nothing
// but reads as a mistake in the server log.
func nonNil(s []uint32) []uint32 {
	if s == nil {
		return []uint32{}
	}
	return s
}
