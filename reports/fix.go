package reports

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// FixCommands are the commands that clear a finding, one a line, as
// `bfaudit fix` prints them ("" when bfaudit has none: a human act, or a
// system it has no command for). Templates call it as `fix`.
func FixCommands(f model.Finding) string {
	r, ok := remedy.For(f, nil)
	if !ok {
		return ""
	}
	return strings.Join(r.Commands(), "\n")
}

// FixMarkdown is FixCommands as a fenced sh block, for the Markdown
// report (`fixmd`): inside a code block estate names are not Markdown,
// mentions or links, and the fence outlasts any backticks in them.
func FixMarkdown(f model.Finding) string {
	cmds := FixCommands(f)
	if cmds == "" {
		return ""
	}
	return "\n" + remedy.CodeBlock("sh", cmds) + "\n"
}
