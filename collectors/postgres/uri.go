package postgres

import (
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, stable across runs:
//
//	postgres://<source>/<database>/<schema>.<table>                 table, view
//	postgres://<source>/<database>/<schema>                         schema
//	postgres://<source>/role/<role>                                 role (cluster-wide)
//	postgres://<source>/<database>/grant/<grantee>/<type>/<object>  privileges of one grantee on one object
//	postgres://<source>/grant/<member>/role/<role>                  role membership
//
// Each name is path-escaped so a '/' in an identifier cannot shift parts.
// The <object> of a grant is <schema>.<table> or, on a schema, <schema>.
// They are built and read here only: the collector writes them, the
// commands and the fix actions read them back with ParsePostgres.

func (p *Postgres) uri(parts ...string) string {
	var b strings.Builder
	b.WriteString("postgres://")
	b.WriteString(url.PathEscape(p.sourceName()))
	for _, part := range parts {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(part))
	}
	return b.String()
}

func (p *Postgres) tableURI(db, schema, table string) string {
	return p.uri(db, schema+"."+table)
}

func (p *Postgres) schemaURI(db, schema string) string { return p.uri(db, schema) }

func (p *Postgres) roleURI(role string) string { return p.uri("role", role) }

// grantURI names the privileges of one grantee on one object of type
// objType (schema, table, sequence); object is schema or schema.table.
func (p *Postgres) grantURI(db, grantee, objType, object string) string {
	return p.uri(db, "grant", grantee, objType, object)
}

func (p *Postgres) membershipURI(member, role string) string {
	return p.uri("grant", member, "role", role)
}

// PGObject is what a PostgreSQL artifact's URI and attributes say it is.
type PGObject struct {
	Database string // "" for cluster-wide objects (roles, memberships)
	// Object is table, partitioned_table, view, materialized_view,
	// foreign_table, schema, role, membership, or the object type of a
	// grant (table, sequence, schema) with Grant set.
	Object string
	Grant  bool
	Schema string
	Name   string // table, role, or the role granted in a membership
	// Grantee holds the privileges (a grant) or the membership (member).
	Grantee    string
	Privileges []string
	// Ambiguous says the schema.table split could not be sure: a name
	// held more than one '.'.
	Ambiguous bool
}

// ParsePostgres reads a PostgreSQL artifact; ok is false when it is not one
// the collector emits.
func ParsePostgres(a *model.Artifact) (PGObject, bool) {
	segs, ok := model.URISegments(a.URI, "postgres")
	if !ok {
		return PGObject{}, false
	}
	switch {
	case len(segs) == 2 && segs[0] == "role" && a.Kind == model.KindCredential:
		return PGObject{Object: "role", Name: segs[1]}, true
	case len(segs) == 4 && segs[0] == "grant" && segs[2] == "role":
		return PGObject{Object: "membership", Grant: true, Grantee: segs[1], Name: segs[3]}, true
	case len(segs) == 5 && segs[1] == "grant" && a.Kind == model.KindGrant:
		o := PGObject{Database: segs[0], Object: segs[3], Grant: true, Grantee: segs[2]}
		for _, p := range strings.Split(a.Attr(model.AttrRole), ",") {
			if p = strings.TrimSpace(p); p != "" {
				o.Privileges = append(o.Privileges, p)
			}
		}
		if o.Object == "schema" {
			o.Schema = segs[4]
		} else {
			o.Schema, o.Name, o.Ambiguous = splitQualified(segs[4])
		}
		return o, true
	case len(segs) == 2 && a.Kind == model.KindTable:
		o := PGObject{Database: segs[0], Object: a.Attr("object")}
		if o.Object == "schema" {
			o.Schema = segs[1]
			return o, true
		}
		if o.Object == "" {
			o.Object = "table"
		}
		o.Schema, o.Name, o.Ambiguous = splitQualified(segs[1])
		return o, o.Name != ""
	}
	return PGObject{}, false
}

// splitQualified splits schema.table at the first '.': a schema name with
// a '.' is far rarer than a table name with one.
func splitQualified(s string) (schema, name string, ambiguous bool) {
	schema, name, _ = strings.Cut(s, ".")
	return schema, name, strings.Contains(name, ".")
}
