package gcpiam

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	crm "google.golang.org/api/cloudresourcemanager/v3"
)

// What the collector writes as a URI, the commands, the fix actions and
// the inference from a finding read back to the same parts, for every
// shape. Project ids, e-mails and key ids cannot hold '/', '?' or '#';
// roles and members are as IAM spells them, a custom role and a member
// with '/' (a workforce principal) among them.
func TestURIRoundTrip(t *testing.T) {
	projects := []string{"p-one", "shop-analytics-2"}
	roles := []string{"roles/bigquery.dataEditor", "projects/p-one/roles/replay.writer", "organizations/123/roles/x"}
	members := []string{"user:alice@example.com", "serviceAccount:bf-1@p.iam.gserviceaccount.com", "deleted:user:bob@example.com?uid=1",
		"principal://iam.googleapis.com/locations/global/workforcePools/pool/subject/alice"}
	for _, project := range projects {
		for _, role := range roles {
			for _, member := range members {
				for _, cond := range []*crm.Expr{nil, {Title: "until #2 / march?", Expression: `request.time < timestamp("2027-01-01T00:00:00Z")`}} {
					uri := GrantURI(project, role, member, cond)
					if p, r, m, ok := parseBindingURI(uri); !ok || p != project || r != role || m != member {
						t.Errorf("binding %q read back as %q %q %q (%v)", uri, p, r, m, ok)
					}
					a := &model.Artifact{Kind: model.KindGrant, URI: uri, Attributes: model.Attrs(model.AttrRole, role, model.AttrPrincipal, member)}
					want := IAMBinding{Project: project, Role: role, Member: member, ConditionUnknown: cond != nil}
					if got, ok := ParseIAM(a); !ok || got != want {
						t.Errorf("binding %q read back as %+v (%v), want %+v", uri, got, ok, want)
					}
				}
			}
		}
		for _, email := range []string{"bf-1234-runner@p-one.iam.gserviceaccount.com", "o'brien+x@example.com"} {
			uri := keyURI(project, email, "0123abcd")
			want := IAMBinding{Project: project, Key: true, Account: email, KeyID: "0123abcd"}
			if got, ok := ParseIAM(&model.Artifact{Kind: model.KindCredential, URI: uri}); !ok || got != want {
				t.Errorf("key %q read back as %+v (%v), want %+v", uri, got, ok, want)
			}
		}
	}
}
