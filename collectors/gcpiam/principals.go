package gcpiam

import (
	"sort"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/model"
	iam "google.golang.org/api/iam/v1"
)

// Principal is an elevated-access principal of a backfill plan (member in
// IAM syntax, optional backfill_id).
type Principal = iamcond.Principal

// account is a service account whose keys are read.
type account struct {
	email, project  string // project may be empty: then "-" is asked
	backfillID, how string
	disabled        bool
	// route is how the account was found, and via the project it was
	// found in: its keys' unit lies under the unit that found it, so when
	// that unit fails next time (and the account is not found, its keys
	// not read) the keys are "not answered" rather than gone.
	route route
	via   string
}

// route orders the ways an account is found, the most dependable last:
// a binding in some project's policy, a declared principal (config or
// plan: needs no listing), the account listing of its own project.
type route int

const (
	routeBinding route = iota + 1
	routeDeclared
	routeListed
)

// unit is the scope path of the account's keys:
// JoinScope(project, "serviceAccounts", email), the project being the one
// the account was listed in, the one its e-mail names (declared), or the
// one whose policy bound it.
func (a account) unit() string {
	return model.JoinScope(a.owner(), "serviceAccounts", a.email)
}

// owner is the project the account's keys fall under (see unit); "-"
// when none is known.
func (a account) owner() string {
	p := a.via
	switch a.route {
	case routeListed:
		p = a.project
	case routeDeclared:
		p = emailProject(a.email)
	}
	if p == "" {
		p = "-"
	}
	return p
}

// accountsScope is the unit of one project's service-account listing.
func accountsScope(project string) string { return model.JoinScope(project, "serviceAccounts") }

// emailProject reads the project out of a user-managed account's e-mail
// (name@PROJECT.iam.gserviceaccount.com) or an App Engine default
// account's (PROJECT@appspot.gserviceaccount.com); "" otherwise.
func emailProject(email string) string {
	local, domain, ok := strings.Cut(strings.ToLower(email), "@")
	if !ok {
		return ""
	}
	if p, ok := strings.CutSuffix(domain, ".iam.gserviceaccount.com"); ok {
		return p
	}
	if domain == "appspot.gserviceaccount.com" {
		return local
	}
	return ""
}

// accountSet gathers the service accounts to read keys of, from bindings,
// account listings and config, once each.
type accountSet struct {
	mu sync.Mutex
	m  map[string]account
}

func newAccountSet() *accountSet { return &accountSet{m: map[string]account{}} }

// add keeps the most informative sighting: a listed account knows its
// project and disabled state; a tie to a backfill beats none.
func (s *accountSet) add(a account) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, seen := s.m[a.email]
	if !seen {
		s.m[a.email] = a
		return
	}
	if old.project == "" && a.project != "" {
		old.project, old.disabled = a.project, a.disabled
	}
	if old.backfillID == "" && a.backfillID != "" {
		old.backfillID, old.how = a.backfillID, a.how
	}
	// The unit follows the most dependable route; between two bindings,
	// the first project in name order, so runs agree.
	if a.route > old.route || (a.route == old.route && a.route == routeBinding && a.via < old.via) {
		old.route, old.via = a.route, a.via
	}
	s.m[a.email] = old
}

// addListed keeps an account of project's listing when it was made for a
// backfill: a backfill id in the e-mail, display name or description, a
// declared principal, or a declared asset. sa has an e-mail.
func (s *accountSet) addListed(tie iamcond.Matcher, project string, sa *iam.ServiceAccount) {
	email := strings.ToLower(sa.Email)
	id, how := tie.Member("serviceAccount:" + email)
	if how == "" {
		if t, ok := tie.Text(sa.DisplayName, sa.Description); ok {
			id, how = t, "name"
		}
	}
	if how == "" {
		if assetID, ok := tie.Asset(accountURI(project, email)); ok {
			id, how = assetID, "asset"
		}
	}
	if how == "" {
		return
	}
	s.add(account{email: email, project: project, backfillID: id, how: how, disabled: sa.Disabled, route: routeListed})
}

// addDeclared adds the service accounts among the configured principals
// and the plans' own elevated-access principals (planned: member ->
// backfill id). Once the binding is revoked, or when the account lives in
// a project not read, the plan is the only place that still names them,
// and their keys are what lingers.
func (s *accountSet) addDeclared(tie iamcond.Matcher, principals []Principal, planned map[string]string) {
	for _, p := range principals {
		if email, ok := iamcond.ServiceAccountEmail(p.Member); ok {
			id, how := tie.Member(p.Member)
			s.add(account{email: email, backfillID: id, how: how, route: routeDeclared})
		}
	}
	for member, id := range planned {
		if email, ok := iamcond.ServiceAccountEmail(member); ok {
			s.add(account{email: email, backfillID: id, how: "declared", route: routeDeclared})
		}
	}
}

func (s *accountSet) get(email string) (account, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.m[email]
	return a, ok
}

func (s *accountSet) list() []account {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]account, 0, len(s.m))
	for _, a := range s.m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].email < out[j].email })
	return out
}
