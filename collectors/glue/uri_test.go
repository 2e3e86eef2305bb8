package glue

import (
	"reflect"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// A table's URI built from hostile names (as a hostile server may answer
// them) reads back to the same parts; anything else is refused.
func TestURIRoundTrip(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		want := Table{Account: baseAccount, Region: mainRegion, Database: name + "db", Name: name}
		uri := TableURI(name, baseAccount, mainRegion, name+"db", name)
		if got, ok := ParseTable(uri); !ok || got != want {
			t.Errorf("%q read back as %+v (%v), want %+v", uri, got, ok, want)
		}
	}
	for _, uri := range []string{
		"glue://s/111111111111/eu-west-1/db", "glue://s/111111111111/eu-west-1/db/t/extra", "glue://s/111111111111//db/t",
		"glue://s/111111111111/eu-west-1/db/", "sqs://s/111111111111/eu-west-1/db/t", "glue://s/1/r/db/%zz",
	} {
		if tb, ok := ParseTable(uri); ok {
			t.Errorf("%q read as %+v", uri, tb)
		}
	}
	if arn := (Table{Account: "1", Region: "cn-north-1", Database: "d", Name: "t"}).ARN(); arn != "arn:aws-cn:glue:cn-north-1:1:table/d/t" {
		t.Errorf("ARN in China: %s", arn)
	}
}

// A permission's URI built from hostile names reads back to the same
// parts, on every kind of resource; a table's URI is never a permission's
// and a permission's never a table's.
func TestPermissionURIRoundTrip(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		for _, p := range hostilePermissions(name) {
			uri := PermissionURI(name, p)
			got, ok := ParsePermission(uri)
			if !ok || !reflect.DeepEqual(got, p) {
				t.Errorf("%q read back as %+v (%v), want %+v", uri, got, ok, p)
			}
			if tb, ok := ParseTable(uri); ok {
				t.Errorf("%q read as table %+v", uri, tb)
			}
		}
		if p, ok := ParsePermission(TableURI("s", baseAccount, mainRegion, "lakeformation", name)); ok {
			t.Errorf("a table of a database named lakeformation read as %+v", p)
		}
	}
	for _, uri := range []string{
		"glue://s/1/eu-west-1/lakeformation/p/1/table/db",
		"glue://s/1/eu-west-1/lakeformation/p/1/table/db/t/x",
		"glue://s/1/eu-west-1/lakeformation/p/1/database/db/x",
		"glue://s/1/eu-west-1/lakeformation/p/1/columns/db/t",
		"glue://s/1/eu-west-1/lakeformation/p/1/columns/db/t/all/x",
		"glue://s/1/eu-west-1/lakeformation/p/1/columns/db/t/only",
		"glue://s/1/eu-west-1/lakeformation/p/1/columns/db/t/only/b/a",
		"glue://s/1/eu-west-1/lakeformation/p/1/columns/db/t/some/a",
		"glue://s/1/eu-west-1/lakeformation/p/1/catalog/x",
		"glue://s/1/eu-west-1/lakeformation//1/database/db",
		"glue://s/1/eu-west-1/permissions/p/1/database/db",
		"sqs://s/1/eu-west-1/lakeformation/p/1/database/db",
	} {
		if p, ok := ParsePermission(uri); ok {
			t.Errorf("%q read as %+v", uri, p)
		}
	}
}
