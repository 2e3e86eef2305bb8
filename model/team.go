package model

import (
	"slices"
	"sort"
	"strings"
)

// Team is one team of the `teams` config section: its members (owners as
// plans and labels write them), the lead told when a member's finding is
// overdue past escalate_after, and the team's Slack channel, where the
// escalation goes when set (else to the lead directly).
type Team struct {
	Members []string `json:"members,omitempty" mapstructure:"members"`
	Lead    string   `json:"lead,omitempty" mapstructure:"lead"`
	Channel string   `json:"channel,omitempty" mapstructure:"channel"`
}

// Teams maps a team's name to the team.
type Teams map[string]Team

// Of names the team an owner is a member of (matched case-insensitively),
// "" when none. The config refuses an owner in two teams; should one get
// through, the first team by name wins, so the answer never varies.
func (t Teams) Of(owner string) (string, Team, bool) {
	if owner == "" {
		return "", Team{}, false
	}
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if slices.ContainsFunc(t[n].Members, func(m string) bool { return strings.EqualFold(m, owner) }) {
			return n, t[n], true
		}
	}
	return "", Team{}, false
}

// Name is Of's team name alone: the resolver the metrics' team label takes.
func (t Teams) Name(owner string) string {
	n, _, _ := t.Of(owner)
	return n
}

// Namer is Name for naming many findings: it looks each owner up once,
// where Name sorts the team names and scans their members on every call
// (a report names a few hundred owners on a hundred thousand findings).
// The function it returns is for one goroutine.
func (t Teams) Namer() func(owner string) string {
	if len(t) == 0 {
		return func(string) string { return "" }
	}
	known := map[string]string{}
	return func(owner string) string {
		n, ok := known[owner]
		if !ok {
			n = t.Name(owner)
			known[owner] = n
		}
		return n
	}
}
