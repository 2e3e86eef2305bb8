package gcpiam

import (
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/bfaudit/bfaudit/correlate"
)

// Principal is an elevated-access principal a backfill plan declares. The
// selector carries plans' assets but not their principals, so they are
// listed here; BackfillID ties what is found to its backfill.
type Principal struct {
	// Member in IAM syntax (serviceAccount:x@p.iam.gserviceaccount.com,
	// user:a@example.com, group:...); a bare e-mail matches any type.
	Member     string `mapstructure:"member"`
	BackfillID string `mapstructure:"backfill_id"`
}

// principalMatcher is what a selector offers when it also knows the
// principals of plans' elevated access; used when present, so plans' own
// declarations count without repeating them in this source's config.
type principalMatcher interface {
	FromPrincipal(member string) (id string, ok bool)
}

// tier decides whether an IAM member or binding belongs to a backfill.
type tier struct {
	sel      *correlate.Selector
	declared map[string]string // normalized member or bare e-mail -> backfill id ("" if not given)
}

func (c *Collector) newTier() tier {
	t := tier{sel: c.sel, declared: map[string]string{}}
	for _, p := range c.Principals {
		t.declared[normalizeMember(p.Member)] = p.BackfillID
	}
	return t
}

// member ties one IAM member: a declared principal first (its configured
// id, else one found in its e-mail), then the selector's principals, then
// a backfill id in the member's e-mail (bf-1234-runner@...).
func (t tier) member(m string) (id, how string) {
	norm := normalizeMember(m)
	bfID, declared := t.declared[norm]
	if !declared {
		bfID, declared = t.declared[memberEmail(norm)]
	}
	if declared {
		if bfID == "" {
			bfID, _ = t.sel.FromName(memberEmail(m))
		}
		return bfID, "declared"
	}
	if pm, ok := any(t.sel).(principalMatcher); ok {
		if id, ok := pm.FromPrincipal(m); ok {
			return id, "declared"
		}
	}
	if id, ok := t.sel.FromName(memberEmail(m)); ok {
		return id, "name"
	}
	return "", ""
}

// text ties by a backfill id written in a condition's title or
// description, or a service account's display name or description. The
// name patterns are made for object names (bf_1234_refunds), so prose is
// cut into words first: "BF-2001 replay write" holds the word BF-2001.
func (t tier) text(parts ...string) (id string, ok bool) {
	for _, p := range parts {
		for _, w := range strings.FieldsFunc(p, notNameRune) {
			if id, ok := t.sel.FromName(w); ok {
				return id, true
			}
		}
	}
	return "", false
}

func notNameRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.'
}

// normalizeMember lowercases a member: e-mails are case-insensitive, and
// people write serviceAccount / serviceaccount interchangeably in config.
func normalizeMember(m string) string { return strings.ToLower(strings.TrimSpace(m)) }

// memberEmail strips the type prefix (and a deleted: marker and ?uid=
// suffix) from a member, leaving the e-mail or identifier.
func memberEmail(m string) string {
	m = strings.TrimPrefix(m, "deleted:")
	if i := strings.IndexByte(m, ':'); i >= 0 && !strings.Contains(m[:i], "@") && !strings.HasPrefix(m, "principal") {
		m = m[i+1:]
	}
	if i := strings.Index(m, "?uid="); i >= 0 {
		m = m[:i]
	}
	return m
}

// serviceAccountEmail reports whether a member is a service account and
// returns its e-mail.
func serviceAccountEmail(m string) (string, bool) {
	norm := normalizeMember(m)
	switch {
	case strings.HasPrefix(norm, "serviceaccount:"):
		return strings.ToLower(memberEmail(norm)), true
	case !strings.Contains(norm, ":") && strings.HasSuffix(norm, ".gserviceaccount.com"):
		return norm, true
	}
	return "", false
}

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
