package slack

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/slack-go/slack"
)

// The digest opens with the overdue items, by team, owners in no team last.
func TestDigestListsOverdueByTeamFirst(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	mk := func(rule, owner string, over bool) model.Finding {
		return model.Finding{RuleID: rule, Title: rule, Owner: owner, BackfillID: "BF-1", Severity: model.SeverityHigh,
			Fingerprint: rule, DueAt: now.Add(-time.Hour), Overdue: over}
	}
	r := &model.Report{Now: now, Findings: []model.Finding{mk("BF001", "zed", true), mk("BF002", "alice", true), mk("BF003", "alice", false)}}
	d := newDigest(r, "week", changes{}, 0)
	d.teams = model.Teams{"payments": {Members: []string{"alice"}, Lead: "carol"}}
	var text []string
	for _, b := range d.overdueBlocks() {
		if s, ok := b.(*slack.SectionBlock); ok && s.Text != nil {
			text = append(text, s.Text.Text)
		}
	}
	all := strings.Join(text, "\n")
	ip, in := strings.Index(all, "team payments (1)"), strings.Index(all, "no team (1)")
	if ip < 0 || in < ip || strings.Contains(all, "BF003") {
		t.Errorf("overdue blocks:\n%s\nwant team payments (BF002), then no team (BF001), and not BF003", all)
	}
}
