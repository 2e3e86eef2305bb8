package slack

import (
	"fmt"
	"sort"

	"github.com/bfaudit/bfaudit/model"
	"github.com/slack-go/slack"
)

// WithTeams gives the digest the teams config: overdue items are listed
// first, by the owner's team (docs/reports/due.md).
func WithTeams(t model.Teams) Option { return func(s *Sink) { s.teams = t } }

// overdueBlocks lists the open items past their due date, grouped by the
// owner's team (teams by name, then owners in no team), ahead of the rest
// of the digest: what needs a lead's attention first.
func (d *digest) overdueBlocks() []slack.Block {
	by := map[string][]model.Finding{}
	for _, f := range d.open() {
		if f.Overdue {
			by[d.teams.Name(ownerOf(f))] = append(by[d.teams.Name(ownerOf(f))], f)
		}
	}
	if len(by) == 0 {
		return nil
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { // "" (no team) last
		if (names[i] == "") != (names[j] == "") {
			return names[j] == ""
		}
		return names[i] < names[j]
	})
	var blocks []slack.Block
	for _, n := range names {
		title := "*Overdue* · team " + esc(n, 60)
		if n == "" {
			title = "*Overdue* · no team"
		}
		blocks = append(blocks, sections(fmt.Sprintf("%s (%d)", title, len(by[n])), d.lines(by[n], false))...)
	}
	return blocks
}
