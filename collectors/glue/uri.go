package glue

import (
	"slices"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built and read here only:
//
//	glue://<source>/<account>/<region>/<database>/<table>   a table of the account's catalog
//
// and a Lake Formation permission of the account and region: what a
// principal holds on one resource of a catalog (<catalog>, an account id),
//
//	glue://<source>/<account>/<region>/lakeformation/<principal>/<catalog>/database/<database>
//	glue://<source>/<account>/<region>/lakeformation/<principal>/<catalog>/table/<database>/<table>
//	glue://<source>/<account>/<region>/lakeformation/<principal>/<catalog>/tables/<database>          every table of it (a table wildcard)
//	glue://<source>/<account>/<region>/lakeformation/<principal>/<catalog>/columns/<database>/<table>/all
//	glue://<source>/<account>/<region>/lakeformation/<principal>/<catalog>/columns/<database>/<table>/all-but/<column>...
//	glue://<source>/<account>/<region>/lakeformation/<principal>/<catalog>/columns/<database>/<table>/only/<column>...
//	glue://<source>/<account>/<region>/lakeformation/<principal>/<catalog>/location/<S3 ARN>          a data location
//
// (columns sorted). A table's URI has four parts after the source, a
// permission's seven or more, so neither reads as the other, whatever
// the names. Every part is path-escaped (Glue names are lowercase
// letters, digits and underscores, but a hostile answer is read as it
// comes; a principal is an ARN, a location an S3 ARN, both holding '/').

const scheme = "glue"

// lakeFormation is the URI segment, and the scope's, of Lake Formation's
// permissions in an account and region.
const lakeFormation = "lakeformation"

// The kinds of resource a permission bfaudit reports is on.
const (
	onDatabase = "database"
	onTable    = "table"
	onTables   = "tables"
	onColumns  = "columns"
	onLocation = "location"
)

// The ways a permission on columns names them.
const (
	allColumns    = "all"
	allColumnsBut = "all-but"
	onlyColumns   = "only"
)

// TableURI is the URI of a table.
func TableURI(source, account, region, database, table string) string {
	return model.JoinURI(scheme, source, account, region, database, table)
}

// Table is a table read from its URI.
type Table struct {
	Account, Region, Database, Name string
}

// ParseTable reads a table from an artifact's URI, and refuses any URI
// TableURI would not write.
func ParseTable(uri string) (Table, bool) {
	segs, ok := model.NonEmptySegments(uri, scheme, 4)
	if !ok {
		return Table{}, false
	}
	return Table{Account: segs[0], Region: segs[1], Database: segs[2], Name: segs[3]}, true
}

// ARN is the table's ARN, as GetTags takes it.
func (t Table) ARN() string { return tableARN(t.Region, t.Account, t.Database, t.Name) }

func tableARN(region, account, database, table string) string {
	return "arn:" + awsconf.Partition(region) + ":glue:" + region + ":" + account + ":table/" + database + "/" + table
}

// Resource is what a Lake Formation permission is on: a database, a
// table, every table of a database, columns of a table, or a data
// location.
type Resource struct {
	Catalog  string // the Data Catalog holding it: an account id
	Kind     string // onDatabase, onTable, onTables, onColumns or onLocation
	Database string
	Table    string   // onTable, onColumns
	Columns  string   // onColumns: allColumns, allColumnsBut or onlyColumns
	Names    []string // the columns excluded (allColumnsBut) or granted (onlyColumns), sorted
	Location string   // onLocation: the S3 ARN
}

// Permission is what a principal holds on a resource, granted in an
// account and region's Lake Formation.
type Permission struct {
	Account, Region string
	Principal       string // an IAM role or user ARN, an account id, ...
	Resource
}

// PermissionURI is the URI of a permission.
func PermissionURI(source string, p Permission) string {
	parts := []string{p.Account, p.Region, lakeFormation, p.Principal, p.Catalog, p.Kind}
	switch r := p.Resource; r.Kind {
	case onDatabase, onTables:
		parts = append(parts, r.Database)
	case onTable:
		parts = append(parts, r.Database, r.Table)
	case onColumns:
		parts = append(append(parts, r.Database, r.Table, r.Columns), r.Names...)
	case onLocation:
		parts = append(parts, r.Location)
	}
	return model.JoinURI(scheme, source, parts...)
}

// ParsePermission reads a permission from an artifact's URI, and refuses
// any URI PermissionURI would not write.
func ParsePermission(uri string) (Permission, bool) {
	segs, ok := model.URISegments(uri, scheme)
	if !ok || len(segs) < 7 || segs[2] != lakeFormation || slices.Contains(segs, "") {
		return Permission{}, false
	}
	p := Permission{Account: segs[0], Region: segs[1], Principal: segs[3], Resource: Resource{Catalog: segs[4], Kind: segs[5]}}
	rest := segs[6:]
	r := &p.Resource
	switch {
	case (r.Kind == onDatabase || r.Kind == onTables) && len(rest) == 1:
		r.Database = rest[0]
	case r.Kind == onTable && len(rest) == 2:
		r.Database, r.Table = rest[0], rest[1]
	case r.Kind == onColumns && len(rest) == 3 && rest[2] == allColumns:
		r.Database, r.Table, r.Columns = rest[0], rest[1], rest[2]
	case r.Kind == onColumns && len(rest) > 3 && (rest[2] == allColumnsBut || rest[2] == onlyColumns) && slices.IsSorted(rest[3:]):
		r.Database, r.Table, r.Columns, r.Names = rest[0], rest[1], rest[2], rest[3:]
	case r.Kind == onLocation && len(rest) == 1:
		r.Location = rest[0]
	default:
		return Permission{}, false
	}
	return p, true
}
