package glue

import (
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built and read here only:
//
//	glue://<source>/<account>/<region>/<database>/<table>   a table of the account's catalog
//
// Every part is path-escaped (Glue names are lowercase letters, digits
// and underscores, but a hostile answer is read as it comes).

const scheme = "glue"

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
