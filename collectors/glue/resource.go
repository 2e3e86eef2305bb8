package glue

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	lftypes "github.com/aws/aws-sdk-go-v2/service/lakeformation/types"
)

// resourceOf reads the resource of a permission Lake Formation listed in
// account's catalog; false for those bfaudit does not report: the catalog
// itself, LF-tags and their policies, data cells filters.
func resourceOf(r *lftypes.Resource, account string) (Resource, bool) {
	catalog := func(id *string) string { return cmp.Or(aws.ToString(id), account) }
	switch {
	case r == nil:
	case r.Database != nil && aws.ToString(r.Database.Name) != "":
		return Resource{Catalog: catalog(r.Database.CatalogId), Kind: onDatabase, Database: aws.ToString(r.Database.Name)}, true
	case r.Table != nil && aws.ToString(r.Table.DatabaseName) != "":
		t := r.Table
		switch {
		case aws.ToString(t.Name) != "":
			return Resource{Catalog: catalog(t.CatalogId), Kind: onTable, Database: aws.ToString(t.DatabaseName), Table: aws.ToString(t.Name)}, true
		case t.TableWildcard != nil:
			return Resource{Catalog: catalog(t.CatalogId), Kind: onTables, Database: aws.ToString(t.DatabaseName)}, true
		}
	case r.TableWithColumns != nil && aws.ToString(r.TableWithColumns.DatabaseName) != "" && aws.ToString(r.TableWithColumns.Name) != "":
		t := r.TableWithColumns
		out := Resource{Catalog: catalog(t.CatalogId), Kind: onColumns, Database: aws.ToString(t.DatabaseName), Table: aws.ToString(t.Name)}
		switch {
		case t.ColumnWildcard != nil && len(t.ColumnWildcard.ExcludedColumnNames) == 0:
			out.Columns = allColumns
		case t.ColumnWildcard != nil:
			out.Columns, out.Names = allColumnsBut, columnSet(t.ColumnWildcard.ExcludedColumnNames)
		case len(t.ColumnNames) > 0:
			out.Columns, out.Names = onlyColumns, columnSet(t.ColumnNames)
		default:
			return Resource{}, false
		}
		if slices.Contains(out.Names, "") {
			return Resource{}, false
		}
		return out, true
	case r.DataLocation != nil && aws.ToString(r.DataLocation.ResourceArn) != "":
		return Resource{Catalog: catalog(r.DataLocation.CatalogId), Kind: onLocation, Location: aws.ToString(r.DataLocation.ResourceArn)}, true
	}
	return Resource{}, false
}

// columnSet is names sorted, each once: Lake Formation treats them as a
// set, and the URI must not change with the order they are answered in.
func columnSet(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

// sdk is the resource as RevokePermissions takes it.
func (r Resource) sdk() *lftypes.Resource {
	c, db := aws.String(r.Catalog), aws.String(r.Database)
	switch r.Kind {
	case onDatabase:
		return &lftypes.Resource{Database: &lftypes.DatabaseResource{CatalogId: c, Name: db}}
	case onTable:
		return &lftypes.Resource{Table: &lftypes.TableResource{CatalogId: c, DatabaseName: db, Name: aws.String(r.Table)}}
	case onTables:
		return &lftypes.Resource{Table: &lftypes.TableResource{CatalogId: c, DatabaseName: db, TableWildcard: &lftypes.TableWildcard{}}}
	case onColumns:
		t := &lftypes.TableWithColumnsResource{CatalogId: c, DatabaseName: db, Name: aws.String(r.Table)}
		switch r.Columns {
		case allColumns:
			t.ColumnWildcard = &lftypes.ColumnWildcard{}
		case allColumnsBut:
			t.ColumnWildcard = &lftypes.ColumnWildcard{ExcludedColumnNames: slices.Clone(r.Names)}
		default:
			t.ColumnNames = slices.Clone(r.Names)
		}
		return &lftypes.Resource{TableWithColumns: t}
	}
	return &lftypes.Resource{DataLocation: &lftypes.DataLocationResource{CatalogId: c, ResourceArn: aws.String(r.Location)}}
}

// listFilter is the resource ListPermissions is asked about to read the
// permission again: columns are asked of their table (the listing does
// not take a table with columns, and answers them with the table).
func (r Resource) listFilter() *lftypes.Resource {
	if r.Kind == onColumns {
		return Resource{Catalog: r.Catalog, Kind: onTable, Database: r.Database, Table: r.Table}.sdk()
	}
	return r.sdk()
}

// cliJSON is the resource as the aws CLI's --resource takes it: the
// API's structure in JSON.
func (r Resource) cliJSON() string {
	in := map[string]any{"CatalogId": r.Catalog}
	var key string
	switch r.Kind {
	case onDatabase:
		key, in["Name"] = "Database", r.Database
	case onTable:
		key, in["DatabaseName"], in["Name"] = "Table", r.Database, r.Table
	case onTables:
		key, in["DatabaseName"], in["TableWildcard"] = "Table", r.Database, map[string]any{}
	case onColumns:
		key, in["DatabaseName"], in["Name"] = "TableWithColumns", r.Database, r.Table
		switch r.Columns {
		case allColumns:
			in["ColumnWildcard"] = map[string]any{}
		case allColumnsBut:
			in["ColumnWildcard"] = map[string]any{"ExcludedColumnNames": r.Names}
		default:
			in["ColumnNames"] = r.Names
		}
	default:
		key, in["ResourceArn"] = "DataLocation", r.Location
	}
	b, _ := json.Marshal(map[string]any{key: in})
	return string(b)
}

// String says what the resource is, for names and messages.
func (r Resource) String() string {
	switch r.Kind {
	case onDatabase:
		return "database " + r.Database
	case onTable:
		return "table " + r.Database + "." + r.Table
	case onTables:
		return "every table of database " + r.Database
	case onColumns:
		switch r.Columns {
		case allColumns:
			return "every column of table " + r.Database + "." + r.Table
		case allColumnsBut:
			return "every column but " + strings.Join(r.Names, ", ") + " of table " + r.Database + "." + r.Table
		}
		return "columns " + strings.Join(r.Names, ", ") + " of table " + r.Database + "." + r.Table
	}
	return "data location " + r.Location
}
