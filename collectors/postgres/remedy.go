package postgres

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("postgres", remedy.System{Examples: examples, Remove: postgresRemoval, Bound: postgresBound, Infer: inferPostgres,
		Acts: remedy.ActsOn(newPostgres)})
}

// pgPrivileges are the privilege keywords REVOKE takes.
var pgPrivileges = map[string]bool{
	"SELECT": true, "INSERT": true, "UPDATE": true, "DELETE": true, "TRUNCATE": true,
	"REFERENCES": true, "TRIGGER": true, "USAGE": true, "CREATE": true, "MAINTAIN": true,
}

// dropKeyword is the DROP statement for each object the collector emits.
var dropKeyword = map[string]string{
	"table": "TABLE", "partitioned_table": "TABLE", "view": "VIEW",
	"materialized_view": "MATERIALIZED VIEW", "foreign_table": "FOREIGN TABLE", "schema": "SCHEMA",
}

// grantee renders the holder of privileges: PUBLIC is the keyword, not a
// role (the collector names the ACL's grantee 0 so).
func grantee(name string) string {
	if name == "PUBLIC" {
		return "PUBLIC"
	}
	return remedy.Ident(name)
}

// RevokeSQL is the statement that revokes a grant or membership.
func (o PGObject) RevokeSQL() (string, error) {
	switch {
	case o.Object == "membership":
		return fmt.Sprintf("REVOKE %s FROM %s;", remedy.Ident(o.Name), remedy.Ident(o.Grantee)), nil
	case !o.Grant:
		return "", fmt.Errorf("postgres: %s is not a grant", o.Object)
	}
	privs := "ALL PRIVILEGES"
	if len(o.Privileges) > 0 {
		known := true
		for _, p := range o.Privileges {
			known = known && pgPrivileges[p]
		}
		// The artifact is every privilege the grantee holds on the
		// object, so ALL is the same revocation when one is unknown.
		if known {
			privs = strings.Join(o.Privileges, ", ")
		}
	}
	switch o.Object {
	case "schema":
		return fmt.Sprintf("REVOKE %s ON SCHEMA %s FROM %s;", privs, remedy.Ident(o.Schema), grantee(o.Grantee)), nil
	case "sequence":
		return fmt.Sprintf("REVOKE %s ON SEQUENCE %s FROM %s;", privs, remedy.Qualified(o.Schema, o.Name), grantee(o.Grantee)), nil
	case "table":
		return fmt.Sprintf("REVOKE %s ON TABLE %s FROM %s;", privs, remedy.Qualified(o.Schema, o.Name), grantee(o.Grantee)), nil
	}
	return "", fmt.Errorf("postgres: no REVOKE for object type %q", o.Object)
}

// DropSQL is the statement that drops a table, view or schema. It never
// cascades: a table something still depends on is not dropped behind the
// owner's back.
func (o PGObject) DropSQL() (string, error) {
	kw, ok := dropKeyword[o.Object]
	if !ok || o.Grant {
		return "", fmt.Errorf("postgres: no DROP for %q", o.Object)
	}
	if o.Object == "schema" {
		return fmt.Sprintf("DROP SCHEMA %s;", remedy.Ident(o.Schema)), nil
	}
	return fmt.Sprintf("DROP %s %s;", kw, remedy.Qualified(o.Schema, o.Name)), nil
}

// ExpireRoleSQL stops a role from logging in: NOLOGIN, which holds for
// every authentication method, and VALID UNTIL now, so that a password
// login stays refused if LOGIN is given back by mistake. 'now' is read
// when the statement runs, whenever the script is run.
func (o PGObject) ExpireRoleSQL() string {
	return fmt.Sprintf("ALTER ROLE %s NOLOGIN VALID UNTIL 'now';", remedy.Ident(o.Name))
}

func pgAction(name string, step model.Step, summary, database, sql string) remedy.Action {
	return remedy.Action{Name: name, Step: step, Summary: summary, SQL: sql, Database: database,
		Shell: remedy.PsqlBlock(database, sql), Resolves: true}
}

// postgresRemoval removes a PostgreSQL artifact: revoke a grant, expire a
// role, drop a table.
func postgresRemoval(r *remedy.Remedy, a *model.Artifact) {
	o, ok := ParsePostgres(a)
	if !ok {
		return
	}
	if o.Ambiguous {
		r.Notes = append(r.Notes, fmt.Sprintf("the name %q holds more than one '.': the commands read it as schema %q, table %q; check before running", o.Schema+"."+o.Name, o.Schema, o.Name))
	}
	switch {
	case o.Object == "role":
		r.Actions = append(r.Actions, pgAction(remedy.ExpireRole, model.StepAccessRevoked,
			fmt.Sprintf("stop role %s from logging in", o.Name), o.Database, o.ExpireRoleSQL()))
		r.Notes = append(r.Notes, "once nothing needs the role any more: REASSIGN OWNED BY it, DROP OWNED BY it, then DROP ROLE in each database")
	case o.Grant:
		sql, err := o.RevokeSQL()
		if err != nil {
			return
		}
		r.Actions = append(r.Actions, pgAction(remedy.RevokeGrant, model.StepAccessRevoked,
			"revoke "+a.NameOrURI(), o.Database, sql))
	default:
		sql, err := o.DropSQL()
		if err != nil {
			return
		}
		act := pgAction(remedy.DropTable, model.StepRetired, fmt.Sprintf("drop %s %s", strings.ReplaceAll(o.Object, "_", " "), a.NameOrURI()), o.Database, sql)
		if o.Object == "schema" {
			// A schema goes after the tables in it.
			act.Late = true
		}
		r.Actions = append(r.Actions, act)
	}
}

// inferPostgres: the URI says whether it is a role, a membership or a
// grant (and on what), or a table or schema; a grant's privileges are not
// in it. Each shape is read as ParsePostgres reads an artifact of its kind.
func inferPostgres(a *model.Artifact) {
	if o, ok := ParsePostgres(&model.Artifact{Kind: model.KindCredential, URI: a.URI}); ok && o.Object == "role" {
		a.Kind = model.KindCredential
		a.SetAttr(model.AttrPrincipal, o.Name)
		return
	}
	if o, ok := ParsePostgres(&model.Artifact{Kind: model.KindGrant, URI: a.URI}); ok {
		a.Kind = model.KindGrant
		a.SetAttr(model.AttrPrincipal, o.Grantee)
		if o.Object == "membership" {
			a.SetAttr(model.AttrRole, o.Name)
		} else {
			a.SetAttr("object", o.Object)
		}
		return
	}
	schema := &model.Artifact{Kind: model.KindTable, URI: a.URI, Attributes: model.Attrs("object", "schema")}
	if o, ok := ParsePostgres(schema); ok && a.Kind == model.KindTable && !strings.Contains(o.Schema, ".") {
		a.SetAttr("object", "schema")
	}
}

// postgresBound gives a login role an end: VALID UNTIL.
func postgresBound(a *model.Artifact, end string) (template, what string) {
	o, ok := ParsePostgres(a)
	if !ok || o.Object != "role" {
		return "", ""
	}
	return remedy.PsqlBlock(o.Database, fmt.Sprintf("ALTER ROLE %s VALID UNTIL %s;", remedy.Ident(o.Name), remedy.Literal(end))), ""
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"pg-grant": {Kind: model.KindGrant, System: "postgres", Source: "warehouse", State: model.StateActive,
		URI:  "postgres://warehouse/analytics/grant/bf_1234_loader/table/revenue.daily",
		Name: "INSERT,UPDATE on table revenue.daily to bf_1234_loader", Attributes: model.Attrs(model.AttrPrincipal, "bf_1234_loader", model.AttrRole, "INSERT,UPDATE", "object", "table")},
	"pg-role": {Kind: model.KindCredential, System: "postgres", Source: "warehouse", State: model.StateActive,
		URI: "postgres://warehouse/role/bf_1234_loader", Name: "bf_1234_loader", Attributes: model.Attrs(model.AttrPrincipal, "bf_1234_loader", model.AttrLogin, "true")},
	"pg-table": {Kind: model.KindTable, System: "postgres", Source: "warehouse", State: model.StateActive,
		URI: "postgres://warehouse/analytics/scratch.bf_1234_refunds", Name: "scratch.bf_1234_refunds", Attributes: model.Attrs("object", "table")},
}
