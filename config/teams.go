package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// checkTeams validates the `teams` section (docs/reports/due.md): each team
// has members and someone to escalate to (a lead or a channel), a channel
// is a Slack channel (#name or an id), and no owner is in two teams (the
// escalation and the metrics' team label would be a guess). It returns the
// key at fault with the error.
func checkTeams(teams model.Teams) *keyError {
	seen := map[string]string{} // member, lower-cased -> team
	for _, name := range slices.Sorted(maps.Keys(teams)) {
		t := teams[name]
		key := "teams." + name
		if len(t.Members) == 0 {
			return &keyError{key + ".members", errors.New("no members: list the owners (as plans and labels write them) in the team")}
		}
		if strings.TrimSpace(t.Lead) == "" && strings.TrimSpace(t.Channel) == "" {
			return &keyError{key, errors.New("no one to escalate to: set lead, channel or both")}
		}
		if ch := t.Channel; ch != "" && strings.ContainsAny(ch, " \t,") {
			return &keyError{key + ".channel", fmt.Errorf("%q is not a Slack channel (write #name or its id)", ch)}
		}
		for i, m := range t.Members {
			m = strings.TrimSpace(m)
			if m == "" {
				return &keyError{fmt.Sprintf("%s.members[%d]", key, i), errors.New("empty member")}
			}
			if other, ok := seen[strings.ToLower(m)]; ok {
				return &keyError{fmt.Sprintf("%s.members[%d]", key, i), fmt.Errorf("%s is in team %s too: an owner belongs to one team", m, other)}
			}
			seen[strings.ToLower(m)] = name
		}
	}
	return nil
}
