package glue

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("glue", remedy.System{Remove: removal, Infer: infer, Acts: remedy.ActsOn(newActor)})
}

// removal deletes the table from the catalog of its account and region
// (drop_table, which runs under --apply only when fix.allow names it).
// --catalog-id names the account: run with another account's
// credentials, the command is refused instead of deleting a table of the
// same name there.
func removal(r *remedy.Remedy, a *model.Artifact) {
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

// infer: a table's URI names its account, region, database and name.
func infer(a *model.Artifact) {
	if t, ok := ParseTable(a.URI); ok {
		a.Kind, a.Name = model.KindTable, t.Database+"."+t.Name
		a.SetAttr(AttrDatabase, t.Database)
	}
}
