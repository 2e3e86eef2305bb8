package gcpiam

import (
	"time"

	"github.com/bfaudit/bfaudit/model"
	crm "google.golang.org/api/cloudresourcemanager/v3"
	iam "google.golang.org/api/iam/v1"
)

// The functions below let another collector that reads the same bindings
// and keys from elsewhere (cloudasset, from Cloud Asset Inventory) build
// exactly the artifacts this one emits, through the same code, so
// findings and fingerprints do not change when a user switches.

// GrantURI is the URI of member's binding to role in project's policy.
func GrantURI(project, role, member string, cond *crm.Expr) string {
	return grantURI(project, role, member, cond)
}

// GrantArtifact is the grant Collect emits for member's binding to role in
// project's policy (expr and title from its condition, uri from GrantURI).
func GrantArtifact(project, role, member, expr, title, uri, id, how string, now time.Time) model.Artifact {
	return (&Collector{now: func() time.Time { return now }}).grant(project, role, member, expr, title, uri, id, how)
}

// AccountURI is the URI a service account is matched by among declared
// assets.
func AccountURI(project, email string) string { return accountURI(project, email) }

// KeyArtifact is the credential Collect emits for user-managed key k of
// the service account email (project: where it was found, "" if unknown;
// accountDisabled: the account is disabled), with scope as its unit.
func KeyArtifact(email, project, scope string, accountDisabled bool, id, how string, k *iam.ServiceAccountKey, now time.Time) model.Artifact {
	c := &Collector{now: func() time.Time { return now }}
	a := c.key(account{email: email, project: project, backfillID: id, how: how, disabled: accountDisabled}, k)
	a.Scope = scope
	return a
}
