package remedy

import (
	"strings"
)

// Ident quotes a PostgreSQL identifier the way quote_ident does when in
// doubt: always in double quotes, each double quote doubled. Quoting every
// name keeps its case and makes keywords, spaces, ';' and newlines part of
// the name.
func Ident(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// Literal quotes a PostgreSQL string literal as quote_literal does: single
// quotes doubled, and, when the text holds a backslash, the escape string
// form (E'...') with backslashes doubled, so the literal reads the same whatever
// standard_conforming_strings is set to.
func Literal(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// Qualified quotes schema.name.
func Qualified(schema, name string) string { return Ident(schema) + "." + Ident(name) }

// PsqlBlock renders SQL statements as one psql invocation with the SQL in
// a quoted here-document (no shell expansion inside it). The database is
// passed in PGDATABASE, which libpq takes as a plain name: given to -d, a
// name holding '=' would be read as a connection string. The rest of the
// connection (host, user, password) comes from the usual PG* variables;
// cluster-wide statements (roles) name no database.
// ON_ERROR_STOP makes psql exit non-zero on the first failed statement,
// so `set -e` stops the script there.
func PsqlBlock(database, sql string) string {
	delim := heredocDelimiter("BFAUDIT_SQL", sql)
	var b strings.Builder
	if database != "" {
		b.WriteString("PGDATABASE=" + Quote(database) + " ")
	}
	b.WriteString("psql -X -v ON_ERROR_STOP=1 -q <<'" + delim + "'\n")
	b.WriteString(sql)
	if !strings.HasSuffix(sql, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(delim)
	return b.String()
}
