package bigquery

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	bq "google.golang.org/api/bigquery/v2"
)

// What the collector writes as a URI, the commands, the fix actions and
// the inference from a finding read back to the same parts, for every
// shape. Ids cannot hold '/', '?', '#' or '%'; roles and members are as
// IAM spells them, a role with '/' and a member with '/' (a workforce
// principal) among them.
func TestURIRoundTrip(t *testing.T) {
	ids := []string{"p-one", "analytics_eu", "bf_1234_scratch$20260101", "é"}
	roles := []string{"WRITER", "roles/bigquery.dataEditor", "projects/p-one/roles/replay.writer"}
	members := []string{"user:alice@example.com", "serviceAccount:bf-1@p.iam.gserviceaccount.com", "specialGroup:allAuthenticatedUsers", "deleted:user:bob@example.com?uid=1",
		"principal://iam.googleapis.com/locations/global/workforcePools/pool/subject/alice"}
	for i, project := range ids {
		dataset, table := ids[(i+1)%len(ids)], ids[(i+2)%len(ids)]
		tbl := &model.Artifact{Kind: model.KindTable, URI: TableURI(project, dataset, table)}
		if got, ok := ParseBigQuery(tbl); !ok || got != (BQTable{Project: project, Dataset: dataset, Table: table}) {
			t.Errorf("table %q read back as %+v (%v)", tbl.URI, got, ok)
		}
		for _, role := range roles {
			for _, member := range members {
				for _, cond := range []*bq.Expr{nil, {Title: "until #2 / march?", Expression: `request.time < timestamp("2027-01-01T00:00:00Z")`}} {
					uri := aclURI(project, dataset, role, member, cond)
					if r, m, ok := parseACLURI(uri); !ok || r != role || m != member {
						t.Errorf("ACL entry %q read back as %q %q (%v), want %q %q", uri, r, m, ok, role, member)
					}
					a := &model.Artifact{Kind: model.KindGrant, URI: uri, Attributes: model.Attrs(model.AttrRole, role, model.AttrPrincipal, member)}
					want := BQTable{Project: project, Dataset: dataset, ACL: true, Role: role, Member: member}
					if got, ok := ParseBigQuery(a); !ok || got != want {
						t.Errorf("ACL entry %q read back as %+v (%v)", uri, got, ok)
					}
				}
			}
		}
	}
}
