package gcpiam

import (
	"sort"
	"sync"

	"github.com/bfaudit/bfaudit/internal/iamcond"
)

// Principal is an elevated-access principal of a backfill plan (member in
// IAM syntax, optional backfill_id).
type Principal = iamcond.Principal

// account is a service account whose keys are read.
type account struct {
	email, project  string // project may be empty: then "-" is asked
	backfillID, how string
	disabled        bool
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
	s.m[a.email] = old
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
