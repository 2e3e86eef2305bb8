package postgres

import (
	"net/url"
	"strings"
)

// Artifact URIs, stable across runs:
//
//	postgres://<source>/<database>/<schema>.<table>          table, view
//	postgres://<source>/<database>/<schema>                  schema
//	postgres://<source>/role/<role>                          role (cluster-wide)
//	postgres://<source>/<database>/grant/<grantee>/<type>/<object>  privileges of one grantee on one object
//	postgres://<source>/grant/<member>/role/<role>           role membership
//
// Each name is path-escaped so a '/' in an identifier cannot shift parts.

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
