package slack

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"
)

// Slack's Block Kit limits: blocks in one message, characters in one text.
const (
	maxBlocks = 50
	maxText   = 3000
	// headerMax is the limit of a header block's plain text.
	headerMax = 150
)

// message is one Slack message: the notification text and its blocks.
type message struct {
	Text   string
	Blocks []slack.Block
	// Meta is the message metadata naming it (event type, key, part), by
	// which a rerun finds it in the channel: see once.go.
	Meta *slack.SlackMetadata
}

func mrkdwn(text string) *slack.TextBlockObject {
	// verbatim: Slack must not turn plain text into links or mentions; our
	// own <url|label> markup still works.
	return slack.NewTextBlockObject(slack.MarkdownType, text, false, true)
}

func header(text string) slack.Block {
	return slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, clip(text, headerMax), false, false))
}

func section(text string) slack.Block { return slack.NewSectionBlock(mrkdwn(text), nil, nil) }

func contextBlock(text string) slack.Block { return slack.NewContextBlock("", mrkdwn(text)) }

// sections packs a titled list of lines into as many section blocks as the
// text limit needs; later blocks repeat the title marked "continued", so a
// reader of any one block knows what the list is.
func sections(title string, lines []string) []slack.Block {
	var out []slack.Block
	cur := title
	n := 0 // lines in cur
	for _, l := range lines {
		l = fitLine(l, maxText-runes(title)-len(" (continued)")-1)
		if n > 0 && runes(cur)+1+runes(l) > maxText {
			out = append(out, section(cur))
			cur, n = title+" (continued)", 0
		}
		cur += "\n" + l
		n++
	}
	return append(out, section(cur))
}

const shortened = " … (shortened)"

// fitLine shortens a line that alone would break the text limit, visibly,
// without cutting through an entity (&amp;) or a link (<url|label>).
func fitLine(l string, max int) string {
	if runes(l) <= max {
		return l
	}
	r := []rune(l)[:max-runes(shortened)]
	s := string(r)
	if i := strings.LastIndex(s, "&"); i > strings.LastIndex(s, ";") {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "<"); i > strings.LastIndex(s, ">") {
		s = s[:i]
	}
	return s + shortened
}

// paginate spreads blocks over messages of at most maxBlocks. When there is
// more than one, the first says so and each later one says which part it
// is, so a reader never takes a part for the whole.
func paginate(text string, blocks []slack.Block) []message {
	per := maxBlocks - 1 // room for the "part i of n" note
	n := (len(blocks) + per - 1) / per
	if n <= 1 {
		return []message{{Text: text, Blocks: blocks}}
	}
	msgs := make([]message, 0, n)
	for i := range n {
		chunk := blocks[i*per : min((i+1)*per, len(blocks))]
		var bs []slack.Block
		if i == 0 {
			bs = append(append(bs, chunk...), contextBlock(fmt.Sprintf("Continued in %d more parts in the thread.", n-1)))
			msgs = append(msgs, message{Text: text, Blocks: bs})
			continue
		}
		bs = append(append(bs, contextBlock(fmt.Sprintf("Part %d of %d", i+1, n))), chunk...)
		msgs = append(msgs, message{Text: fmt.Sprintf("%s (part %d of %d)", text, i+1, n), Blocks: bs})
	}
	return msgs
}
