package slack

import (
	_ "github.com/bfaudit/bfaudit/collectors/all" // every system's commands
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/bfaudit/bfaudit/model"
	// The rules carry their remedies: a finding has commands only once
	// its rule is registered, as in bfaudit.
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

func messagesText(ms []message) string {
	var b strings.Builder
	for _, m := range ms {
		for _, blk := range m.Blocks {
			if s, ok := blk.(*slack.SectionBlock); ok && s.Text != nil {
				b.WriteString(s.Text.Text + "\n")
			}
		}
	}
	return b.String()
}

// The owner's message carries, under each item, the command that clears
// it, estate text escaped; the channel digest does not.
func TestOwnerMessageCarriesTheCommand(t *testing.T) {
	queue := "bf_1.retry<!channel>"
	r := &model.Report{Now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		Backfills: []model.BackfillReport{{Backfill: &model.Backfill{ID: "BF-1", Owner: "alice"}, Known: true}},
		Findings: []model.Finding{
			{RuleID: "BF006", Severity: model.SeverityMedium, Title: "Temporary queue", BackfillID: "BF-1", Owner: "alice",
				ArtifactURI: "rabbitmq://mq/%2F/queue/" + url.PathEscape(queue), Fingerprint: "f1"},
			{RuleID: "BF008", Severity: model.SeverityMedium, Title: "No record", BackfillID: "BF-1", Owner: "alice", Fingerprint: "f2"},
		}}
	d := newDigest(r, "2026-11-30", changes{}, 0)
	dm := messagesText(directMessages(d, ownerItems{owner: "alice", findings: r.Findings}))
	if want := "\n```rabbitmqadmin --vhost=/ delete queue 'name=bf_1.retry&lt;!channel&gt;'```"; !strings.Contains(dm, want) {
		t.Errorf("owner message lacks %q:\n%s", want, dm)
	}
	if strings.Contains(dm, "<!channel>") || strings.Count(dm, "```") != 2 {
		t.Errorf("one command block, escaped, expected:\n%s", dm)
	}
	if digest := messagesText([]message{{Blocks: d.backfillBlocks()}}); strings.Contains(digest, "rabbitmqadmin") {
		t.Errorf("the channel digest should not carry commands:\n%s", digest)
	}
}

// A command holding a backtick cannot be quoted in Slack: the item points
// at bfaudit fix instead of showing a broken block.
func TestOwnerMessageCommandWithBacktick(t *testing.T) {
	f := model.Finding{RuleID: "BF006", BackfillID: "bf_2", ArtifactURI: "rabbitmq://mq/%2F/queue/" + url.PathEscape("a`b")}
	if got := fixText(f); got != "\n_command: `bfaudit fix --backfill BF-2`_" {
		t.Errorf("fixText = %q", got)
	}
}
