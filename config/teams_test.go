package config

import (
	"strings"
	"testing"
)

func TestTeamsLoad(t *testing.T) {
	t.Setenv("BFAUDIT_TEAMS_SEARCH_LEAD", "frank") // a key the file has: the env wins, as for owners
	c, err := Load(NewViper(), write(t, `teams:
  payments: {members: [alice@example.com, bob], lead: carol@example.com, channel: "#payments-data"}
  search: {members: [dave], lead: erin}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Teams.Name("Bob"); got != "payments" {
		t.Errorf("bob's team = %q, want payments", got)
	}
	if p := c.Teams["payments"]; p.Lead != "carol@example.com" || p.Channel != "#payments-data" {
		t.Errorf("payments = %+v", p)
	}
	if got := c.Teams["search"].Lead; got != "frank" {
		t.Errorf("search lead = %q, want frank from BFAUDIT_TEAMS_SEARCH_LEAD", got)
	}
}

func TestTeamsRefused(t *testing.T) {
	for body, want := range map[string]string{
		"teams: {a: {lead: x}}\n":                                           "teams.a.members: no members",
		"teams: {a: {members: [m]}}\n":                                      "teams.a: no one to escalate to",
		"teams: {a: {members: [m], lead: x}, b: {members: [M], lead: y}}\n": "teams.b.members[0]: M is in team a too",
		"teams: {a: {members: [m], channel: 'pay ments'}}\n":                "teams.a.channel:",
	} {
		_, err := Load(NewViper(), write(t, body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to say %q", body, err, want)
		}
	}
}
