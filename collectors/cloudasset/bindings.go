package cloudasset

import (
	"fmt"
	"strings"

	"cloud.google.com/go/iam/apiv1/iampb"
	"github.com/bfaudit/bfaudit/collectors/bigquery"
	"github.com/bfaudit/bfaudit/collectors/gcpiam"
	"github.com/bfaudit/bfaudit/correlate/iamcond"
	bq "google.golang.org/api/bigquery/v2"
	crm "google.golang.org/api/cloudresourcemanager/v3"
	"google.golang.org/genproto/googleapis/type/expr"
)

// projectBindings emits a grant for each backfill member of each binding
// of a project's policy. The loop is gcpiam's (collectBindings there, where
// it sits between the API call and the sink, so it is copied rather than
// called); the grants are built by gcpiam.GrantArtifact.
func (c *Collector) projectBindings(b *built, inv *inventory, pol *policy) {
	p, err := projectOfPolicy(inv, pol.resource)
	if err != nil {
		// Without the project id neither the grants' URIs nor their unit
		// are known: the whole source did not fully answer.
		b.fail("", err)
		return
	}
	for _, bd := range pol.bindings {
		var exprText, title, desc string
		if cond := bd.GetCondition(); cond != nil {
			exprText, title, desc = cond.GetExpression(), cond.GetTitle(), cond.GetDescription()
		}
		bindingID, bindingTied := b.m.Text(title, desc)
		for _, member := range bd.GetMembers() {
			id, how := b.m.Member(member)
			memberTied := how != ""
			if !memberTied && bindingTied {
				id, how = bindingID, "name"
			}
			uri := gcpiam.GrantURI(p, bd.GetRole(), member, crmExpr(bd.GetCondition()))
			if how == "" {
				if assetID, ok := b.m.Asset(uri); ok {
					id, how = assetID, "asset"
				}
			}
			if how == "" {
				continue
			}
			if email, ok := iamcond.ServiceAccountEmail(member); ok && memberTied {
				b.accounts.AddBound(email, p, id, how)
			}
			b.emit("gcpiam", gcpiam.GrantArtifact(p, bd.GetRole(), member, exprText, title, uri, id, how, b.now))
		}
	}
}

// projectOfPolicy reads the project id of a project's policy: searches name
// projects by id, exports by number.
func projectOfPolicy(inv *inventory, name string) (string, error) {
	p := projectID(name)
	if !allDigits(p) {
		return p, nil
	}
	if id, ok := inv.numbers[p]; ok {
		return id, nil
	}
	return "", fmt.Errorf("cloudasset: IAM policy of projects/%s: project number not found among the assets read; export the %s assets too (gcloud asset export --asset-types=%s), so grants carry the project id", p, typeProject, typeProject)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func crmExpr(e *expr.Expr) *crm.Expr {
	if e == nil {
		return nil
	}
	return &crm.Expr{Title: e.GetTitle(), Expression: e.GetExpression(), Description: e.GetDescription(), Location: e.GetLocation()}
}

// datasetACL emits the grants the bigquery collector emits for a dataset's
// ACL, from the dataset's IAM policy: the same entries, in IAM spelling.
func (c *Collector) datasetACL(b *built, pol *policy) {
	n, _ := parseName(pol.resource)
	p, d := n.segment("projects"), n.segment("datasets")
	if p == "" || d == "" {
		b.fail(projectID(pol.resource), fmt.Errorf("cloudasset: IAM policy of %s: not a dataset name", pol.resource))
		return
	}
	var access []*bq.DatasetAccess
	for _, bd := range pol.bindings {
		for _, member := range bd.GetMembers() {
			access = append(access, aclEntry(bd, member))
		}
	}
	dt := b.datasets[pol.resource]
	for _, a := range bigquery.ACLGrants(p, d, access, dt.id, dt.how, b.m, b.now) {
		b.emit("bigquery", a)
	}
}

// basicRoles are the dataset roles BigQuery's ACL shows under their basic
// names ("predefined roles that have equivalent basic roles are swapped by
// the API to their basic counterparts"), so the grant URIs match.
var basicRoles = map[string]string{
	"roles/bigquery.dataOwner":  "OWNER",
	"roles/bigquery.dataEditor": "WRITER",
	"roles/bigquery.dataViewer": "READER",
}

// projectRoleGroups are the members IAM shows for the ACL entries BigQuery
// puts on every dataset; the bigquery collector skips them, by their ACL
// special groups.
var projectRoleGroups = map[string]string{
	"projectOwner":  "projectOwners",
	"projectEditor": "projectWriters",
	"projectViewer": "projectReaders",
}

// aclEntry spells one member of a dataset's binding as datasets.get would.
func aclEntry(bd *iampb.Binding, member string) *bq.DatasetAccess {
	e := &bq.DatasetAccess{Role: bd.GetRole()}
	if basic, ok := basicRoles[e.Role]; ok {
		e.Role = basic
	}
	if cond := bd.GetCondition(); cond != nil {
		e.Condition = &bq.Expr{Title: cond.GetTitle(), Expression: cond.GetExpression(), Description: cond.GetDescription(), Location: cond.GetLocation()}
	}
	kind, _, _ := strings.Cut(member, ":")
	switch {
	case projectRoleGroups[kind] != "":
		e.SpecialGroup = projectRoleGroups[kind]
	case member == "allAuthenticatedUsers":
		e.SpecialGroup = member
	default:
		e.IamMember = member
	}
	return e
}
