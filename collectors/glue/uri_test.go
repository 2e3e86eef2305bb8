package glue

import (
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
