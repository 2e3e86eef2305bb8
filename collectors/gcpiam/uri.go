package gcpiam

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/model"
	crm "google.golang.org/api/cloudresourcemanager/v3"
)

// Artifact URIs, built and read here only (the cloudasset collector builds
// the same through GrantURI and KeyArtifact):
//
//	gcpiam://<project>/bindings/<role>/<member>[?condition=<key>]  a member's binding to a role
//	gcpiam://<project>/serviceAccounts/<email>                     a service account (matched by, not emitted)
//	gcpiam://<project>/serviceAccounts/<email>/keys/<key id>       a user-managed key
//
// Ids go in as they are: a project id, an e-mail or a key id cannot hold
// '/', '?' or '#'. A role is roles/<name>, or a custom role under
// projects/<p>/ or organizations/<o>/; a member may hold '/' (a workforce
// principal). A conditional binding adds its condition's key,
// query-escaped.

// GrantURI is the URI of member's binding to role in project's policy.
// The same role and member may be bound twice with different conditions,
// so a conditional binding adds its condition's title, or a hash of its
// expression when it has none.
func GrantURI(project, role, member string, cond *crm.Expr) string {
	uri := fmt.Sprintf("gcpiam://%s/bindings/%s/%s", project, role, member)
	if cond == nil {
		return uri
	}
	if key := iamcond.ConditionKey(cond.Title, cond.Expression); key != "" {
		uri += "?condition=" + url.QueryEscape(key)
	}
	return uri
}

func accountURI(project, email string) string {
	return fmt.Sprintf("gcpiam://%s/serviceAccounts/%s", project, email)
}

func keyURI(project, email, keyID string) string {
	return accountURI(project, email) + "/keys/" + keyID
}

// IAMBinding is one member's project IAM binding, or a service-account
// key, read from its URI and attributes.
type IAMBinding struct {
	Project string
	// A binding: Role, Member, and the condition's expression and title
	// when it has one.
	Role, Member   string
	Expression     string
	Title          string
	Key            bool
	Account, KeyID string
	// ConditionUnknown: the URI names a condition the artifact does not
	// carry (a report has only the URI), so no command can match it.
	ConditionUnknown bool
}

// ParseIAM reads a gcpiam artifact.
func ParseIAM(a *model.Artifact) (IAMBinding, bool) {
	segs, ok := model.RawURISegments(a.URI, "gcpiam")
	if !ok || len(segs) < 3 || segs[0] == "" {
		return IAMBinding{}, false
	}
	b := IAMBinding{Project: segs[0]}
	switch {
	case a.Kind == model.KindGrant && segs[1] == "bindings":
		b.Role, b.Member = a.Attr(model.AttrRole), a.Attr(model.AttrPrincipal)
		b.Expression, b.Title = a.Attr(model.AttrCondition), a.Attr(AttrConditionTitle)
		b.ConditionUnknown = b.Expression == "" && strings.Contains(a.URI, "?condition=")
		return b, b.Role != "" && b.Member != ""
	case a.Kind == model.KindCredential && len(segs) == 5 && segs[1] == "serviceAccounts" && segs[3] == "keys":
		b.Key, b.Account, b.KeyID = true, segs[2], segs[4]
		return b, b.Account != "" && b.KeyID != ""
	}
	return IAMBinding{}, false
}

// parseBindingURI reads a binding's project, role and member from its URI
// alone: the role is two parts (roles/x), or four under projects/ or
// organizations/; the member is the rest, up to the condition (a deleted
// member holds a '?': deleted:user:<e-mail>?uid=<id>).
func parseBindingURI(uri string) (project, role, member string, ok bool) {
	rest, ok := strings.CutPrefix(uri, "gcpiam://")
	rest, _, _ = strings.Cut(rest, "?condition=")
	segs := strings.Split(rest, "/")
	if !ok || len(segs) < 4 || segs[1] != "bindings" {
		return "", "", "", false
	}
	n := 2 // roles/x
	if segs[2] == "projects" || segs[2] == "organizations" {
		n = 4 // projects/p/roles/x
	}
	if len(segs) < 2+n+1 {
		return "", "", "", false
	}
	return segs[0], strings.Join(segs[2:2+n], "/"), strings.Join(segs[2+n:], "/"), true
}
