package ghname

import "testing"

func TestLoginsAndTeams(t *testing.T) {
	for _, c := range []struct {
		s           string
		login, team bool
	}{
		{"octocat", true, false},
		{"mona-lisa-the-octocat", true, false},
		{"1st1", true, false},
		{"mona-cat_octo", true, false}, // a managed user: the enterprise's short code after "_"
		{"octo_admin", true, false},    // an EMU enterprise's setup user
		{"python/email-team", false, true},
		{"shop/data.platform_eu", false, true},
		{"-octocat", false, false},
		{"octo_", false, false},
		{"octo_cat_dog", false, false},
		{"octo cat", false, false},
		{"a234567890123456789012345678901234567890", false, false}, // 40 characters
		{"python/", false, false},
		{"/email-team", false, false},
		{"", false, false},
	} {
		if got := IsLogin(c.s); got != c.login {
			t.Errorf("IsLogin(%q) = %v, want %v", c.s, got, c.login)
		}
		if got := IsTeam(c.s); got != c.team {
			t.Errorf("IsTeam(%q) = %v, want %v", c.s, got, c.team)
		}
	}
}
