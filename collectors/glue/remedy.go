package glue

import (
	"encoding/json"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("glue", remedy.System{Remove: removal, Infer: infer, Acts: remedy.ActsOn(newActor)})
}

// removal deletes the table from the catalog of its account and region
// (drop_table, which runs under --apply only when fix.allow names it),
// or revokes a Lake Formation permission (revocation).
// --catalog-id names the account: run with another account's
// credentials, the command is refused instead of deleting a table of the
// same name there.
func removal(r *remedy.Remedy, a *model.Artifact) {
	if p, ok := ParsePermission(a.URI); ok {
		revocation(r, a, p)
		return
	}
	t, ok := ParseTable(a.URI)
	if !ok {
		return
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DropTable, Step: model.StepRetired, Resolves: true,
		Summary: "delete Glue table " + t.Database + "." + t.Name + " (account " + t.Account + ", " + t.Region + ")",
		Shell: remedy.Command([]string{"aws", "glue", "delete-table"}, []string{
			remedy.Flag("--region", t.Region), remedy.Flag("--catalog-id", t.Account),
			remedy.Flag("--database-name", t.Database), remedy.Flag("--name", t.Name)})})
	// Glue's DeleteTable never deletes data, whatever the table type
	// (Athena's DROP TABLE of an Iceberg table would; this is not that).
	if a.Attr(AttrTableType) != "VIRTUAL_VIEW" {
		where := a.Attr(AttrLocation)
		if where == "" {
			where = "its location"
		}
		r.Notes = append(r.Notes, "deleting a Glue table removes its definition, not its data: the files under "+where+
			" stay until they are deleted too (the s3 source's fix, or aws s3 rm --recursive)")
	}
}

// revocation takes the permission away at the access-revoked step
// (revoke_grant: it cannot be undone, so it runs under --apply only when
// fix.allow names it), exactly as the audit saw it held: the permissions,
// their grant option, its condition. --catalog-id names the account, as
// for a table. A finding read back from a report does not say which
// permissions: it gets a note instead of a command.
func revocation(r *remedy.Remedy, a *model.Artifact, p Permission) {
	perms := a.Attr(AttrPermissions)
	if perms == "" {
		r.Notes = append(r.Notes, "the permissions "+p.Principal+" holds on "+p.Resource.String()+" are not in the finding: "+
			"run bfaudit fix on a fresh audit, or revoke them in Lake Formation (Data permissions) in account "+p.Account+", "+p.Region)
		return
	}
	flags := []string{remedy.Flag("--region", p.Region), remedy.Flag("--catalog-id", p.Account),
		remedy.Flag("--principal", cliJSON(map[string]string{"DataLakePrincipalIdentifier": p.Principal})),
		remedy.Flag("--resource", p.cliJSON()), remedy.Flag("--permissions", cliJSON(strings.Split(perms, ",")))}
	if g := a.Attr(AttrGrantable); g != "" {
		flags = append(flags, remedy.Flag("--permissions-with-grant-option", cliJSON(strings.Split(g, ","))))
	}
	if c := a.Attr(AttrLFCondition); c != "" {
		flags = append(flags, remedy.Flag("--condition", cliJSON(map[string]string{"Expression": c})))
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.RevokeGrant, Step: model.StepAccessRevoked, Resolves: true,
		Summary: "revoke Lake Formation " + perms + " on " + p.Resource.String() + " from " + p.Principal + " (account " + p.Account + ", " + p.Region + ")",
		Shell:   remedy.Command([]string{"aws", "lakeformation", "revoke-permissions"}, flags)})
}

// cliJSON is a value as the aws CLI takes a structure or list argument.
func cliJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// infer: a table's URI names its account, region, database and name; a
// permission's its principal and resource, not what it holds.
func infer(a *model.Artifact) {
	if p, ok := ParsePermission(a.URI); ok {
		a.Kind, a.Name = model.KindGrant, p.Resource.String()+" to "+p.Principal
		a.SetAttr(model.AttrPrincipal, p.Principal)
		a.SetAttr(AttrResource, p.Resource.String())
		return
	}
	if t, ok := ParseTable(a.URI); ok {
		a.Kind, a.Name = model.KindTable, t.Database+"."+t.Name
		a.SetAttr(AttrDatabase, t.Database)
	}
}
