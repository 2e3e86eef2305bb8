package iamcond

import (
	"strings"
	"unicode"

	"github.com/bfaudit/bfaudit/correlate"
)

// Principal is an elevated-access principal listed in a collector's config,
// in addition to those the plans declare (which the selector carries);
// BackfillID ties what is found.
type Principal struct {
	// Member in IAM syntax (serviceAccount:x@p.iam.gserviceaccount.com,
	// user:a@example.com, group:...); a bare e-mail matches any type.
	Member     string `mapstructure:"member"`
	BackfillID string `mapstructure:"backfill_id"`
}

// principalMatcher is what a selector offers when it also knows the
// principals of plans' elevated access; used when present, so plans' own
// declarations count without repeating them in a source's config.
type principalMatcher interface {
	FromPrincipal(member string) (id string, ok bool)
}

// Matcher decides whether an IAM member, or a binding by its condition's
// words, belongs to a backfill.
type Matcher struct {
	sel      *correlate.Selector
	declared map[string]string // normalized member or bare e-mail -> backfill id ("" if not given)
}

// NewMatcher builds a matcher from the selector and declared principals.
func NewMatcher(sel *correlate.Selector, principals []Principal) Matcher {
	m := Matcher{sel: sel, declared: map[string]string{}}
	for _, p := range principals {
		m.declared[NormalizeMember(p.Member)] = p.BackfillID
	}
	return m
}

// Member ties one IAM member, saying how ("declared" or "name"): a
// declared principal first (its configured id, else one found in its
// e-mail), then the selector's principals when it knows them, then a
// backfill id in the member's e-mail (bf-1234-runner@...).
func (m Matcher) Member(member string) (id, how string) {
	norm := NormalizeMember(member)
	bfID, declared := m.declared[norm]
	if !declared {
		bfID, declared = m.declared[MemberEmail(norm)]
	}
	if declared {
		if bfID == "" {
			bfID, _ = m.sel.FromName(MemberEmail(member))
		}
		return bfID, "declared"
	}
	if pm, ok := any(m.sel).(principalMatcher); ok {
		if id, ok := pm.FromPrincipal(member); ok {
			return id, "declared"
		}
	}
	if id, ok := m.sel.FromName(MemberEmail(member)); ok {
		return id, "name"
	}
	return "", ""
}

// Text ties by a backfill id written in prose: a condition's title or
// description, a service account's display name. The selector's name
// patterns are made for object names (bf_1234_refunds), so the text is cut
// into words first: "BF-2001 replay write" holds the word BF-2001.
func (m Matcher) Text(parts ...string) (id string, ok bool) {
	for _, p := range parts {
		for _, w := range strings.FieldsFunc(p, notNameRune) {
			if id, ok := m.sel.FromName(w); ok {
				return id, true
			}
		}
	}
	return "", false
}

// Asset returns the backfill that declares uri among its assets.
func (m Matcher) Asset(uri string) (id string, ok bool) {
	id, ok = m.sel.Assets[uri]
	return id, ok
}

func notNameRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.'
}

// NormalizeMember lowercases a member: e-mails are case-insensitive, and
// people write serviceAccount / serviceaccount interchangeably in config.
func NormalizeMember(m string) string { return strings.ToLower(strings.TrimSpace(m)) }

// MemberEmail strips the type prefix (and a deleted: marker and ?uid=
// suffix) from a member, leaving the e-mail or identifier. principal://
// and principalSet:// identifiers are returned whole.
func MemberEmail(m string) string {
	if strings.HasPrefix(strings.ToLower(m), "principal") {
		return m
	}
	m = strings.TrimPrefix(m, "deleted:")
	if i := strings.IndexByte(m, ':'); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.Index(m, "?uid="); i >= 0 {
		m = m[:i]
	}
	return m
}

// ServiceAccountEmail reports whether a member is a service account and
// returns its e-mail, lowercased.
func ServiceAccountEmail(m string) (string, bool) {
	norm := NormalizeMember(m)
	switch {
	case strings.HasPrefix(norm, "serviceaccount:"):
		return MemberEmail(norm), true
	case !strings.Contains(norm, ":") && strings.HasSuffix(norm, ".gserviceaccount.com"):
		return norm, true
	}
	return "", false
}
