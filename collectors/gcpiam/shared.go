package gcpiam

import (
	"time"

	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/model"
	iam "google.golang.org/api/iam/v1"
)

// The functions below let another collector that reads the same bindings
// and keys from elsewhere (cloudasset, from Cloud Asset Inventory) build
// exactly the artifacts this one emits, and keep the same service
// accounts under the same units (AccountSet), through the same code, so
// findings, fingerprints and units do not change when a user switches.

// GrantArtifact is the grant Collect emits for member's binding to role in
// project's policy (expr and title from its condition, uri from GrantURI).
func GrantArtifact(project, role, member, expr, title, uri, id, how string, now time.Time) model.Artifact {
	return (&Collector{now: func() time.Time { return now }}).grant(project, role, member, expr, title, uri, id, how)
}

// KeyArtifact is the credential Collect emits for user-managed key k of
// the service account email (project: where it was found, "" if unknown;
// accountDisabled: the account is disabled), with scope as its unit.
func KeyArtifact(email, project, scope string, accountDisabled bool, id, how string, k *iam.ServiceAccountKey, now time.Time) model.Artifact {
	c := &Collector{now: func() time.Time { return now }}
	a := c.key(account{email: email, project: project, backfillID: id, how: how, disabled: accountDisabled}, k)
	a.Scope = scope
	return a
}

// AccountSet gathers the service accounts whose keys are reported, as
// Collect does across its calls: once each, keeping the most informative
// sighting, each with the unit its keys carry. It is safe for concurrent
// use.
type AccountSet struct{ s *accountSet }

// NewAccountSet returns an empty set.
func NewAccountSet() *AccountSet { return &AccountSet{s: newAccountSet()} }

// AddBound adds email as a member that a binding in project's policy tied
// to a backfill (id, how).
func (s *AccountSet) AddBound(email, project, id, how string) {
	s.s.add(account{email: email, backfillID: id, how: how, route: routeBinding, via: project})
}

// AddListed adds an account of project's listing when it was made for a
// backfill (its e-mail, names, a declared principal or asset say so);
// sa must have an e-mail.
func (s *AccountSet) AddListed(tie iamcond.Matcher, project string, sa *iam.ServiceAccount) {
	s.s.addListed(tie, project, sa)
}

// AddDeclared adds the service accounts among the configured principals
// and the plans' principals (planned: member -> backfill id, the
// selector's Principals).
func (s *AccountSet) AddDeclared(tie iamcond.Matcher, principals []Principal, planned map[string]string) {
	s.s.addDeclared(tie, principals, planned)
}

// Account is a service account of an AccountSet, as its keys are reported.
type Account struct {
	Email string
	// Project is the project the account was listed in; "" when it was
	// only bound or declared.
	Project         string
	BackfillID, How string
	Disabled        bool
	// Unit is the scope of its keys: JoinScope(project, "serviceAccounts",
	// email), the project being the one it was listed in, the one its
	// e-mail names (declared), or the one whose policy bound it.
	Unit string
}

func exportAccount(a account) Account {
	return Account{Email: a.email, Project: a.project, BackfillID: a.backfillID, How: a.how, Disabled: a.disabled, Unit: a.unit()}
}

// Get returns the account of email (lower case), if the set holds it.
func (s *AccountSet) Get(email string) (Account, bool) {
	a, ok := s.s.get(email)
	if !ok {
		return Account{}, false
	}
	return exportAccount(a), true
}

// List returns the accounts in e-mail order.
func (s *AccountSet) List() []Account {
	accounts := s.s.list()
	out := make([]Account, len(accounts))
	for i, a := range accounts {
		out[i] = exportAccount(a)
	}
	return out
}
