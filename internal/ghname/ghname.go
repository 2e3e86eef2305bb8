// Package ghname says whether a text is a GitHub login or team, for the
// two places that take them from a user: the owners of a CODEOWNERS line
// and the github sink's accept_from. One rule, so that a login one accepts
// the other does not refuse.
package ghname

import "regexp"

var (
	// A login is letters, digits and hyphens, at most 39, not starting
	// with a hyphen. A managed user of an Enterprise Managed Users
	// enterprise carries its enterprise's short code after an underscore
	// (mona-cat_octo), which GitHub adds to the name its identity provider
	// gives.
	login = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:_[A-Za-z0-9]{1,8})?$`)
	// A team is its organisation's login and its slug.
	team = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// IsLogin reports whether s is a GitHub login, without the "@".
func IsLogin(s string) bool { return login.MatchString(s) }

// IsTeam reports whether s is a team as "org/team-slug", without the "@".
func IsTeam(s string) bool { return team.MatchString(s) }
