package cloudasset

import (
	"sort"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/model"
)

// This file copies gcpiam's bookkeeping of the service accounts whose keys
// are reported (principals.go there): which accounts, and the unit their
// keys carry. It is copied, not shared, because in gcpiam it is the state
// of one Collect run across its API calls, not a constructor another
// collector could call; the artifacts themselves are built by gcpiam's
// code (gcpiam.KeyArtifact). The equivalence test on one fixture keeps the
// two in step.

// account is a service account whose keys are reported.
type account struct {
	email, project  string // project may be empty when not known
	backfillID, how string
	disabled        bool
	route           route
	via             string // the project whose policy bound it
}

// route orders the ways an account is found, the most dependable last.
type route int

const (
	routeBinding route = iota + 1
	routeDeclared
	routeListed
)

// unit is the scope path of the account's keys, as gcpiam spells it:
// JoinScope(project, "serviceAccounts", email), the project being the one
// the account was found in, the one its e-mail names (declared), or the
// one whose policy bound it.
func (a account) unit() string {
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
	return model.JoinScope(p, "serviceAccounts", a.email)
}

// emailProject reads the project out of a user-managed account's e-mail
// or an App Engine default account's; "" otherwise.
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

// accountSet gathers the accounts, once each, keeping the most informative
// sighting.
type accountSet struct {
	mu sync.Mutex
	m  map[string]account
}

func newAccountSet() *accountSet { return &accountSet{m: map[string]account{}} }

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
	if a.route > old.route || (a.route == old.route && a.route == routeBinding && a.via < old.via) {
		old.route, old.via = a.route, a.via
	}
	s.m[a.email] = old
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
