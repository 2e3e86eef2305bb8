package slack

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// maxCommand bounds a command shown in a message: a longer one would be
// shortened by the text limit, and a cut command must never be pasted.
const maxCommand = 1200

// fixText is the command that clears f, for the owner's message: a code
// block under the item, or "" when bfaudit has none, or when it is too
// long or holds a backtick (Slack has no way to quote one in code), in
// which case the item says where to get it. Estate text in it is escaped
// (&, <, >), so a name cannot form a link or a mention.
func fixText(f model.Finding) string {
	r, ok := remedy.For(f, nil)
	if !ok || len(r.Actions) == 0 {
		return ""
	}
	cmds := strings.Join(r.Commands(), "\n")
	if strings.Contains(cmds, "`") || len([]rune(cmds)) > maxCommand {
		return "\n_command: `bfaudit fix --backfill " + esc(string(model.ParseID(f.BackfillID)), 80) + "`_"
	}
	return "\n```" + escaper.Replace(cmds) + "```"
}
