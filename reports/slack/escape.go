package slack

import (
	"strings"
	"unicode/utf8"
)

// escaper turns the three characters Slack treats as markup into entities,
// so text from the estate can never form a link, a mention (<!channel>,
// <@U123>) or a broadcast.
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// esc escapes estate text for mrkdwn, after clipping it to max characters
// so one long name cannot push a line past Slack's text limit.
func esc(s string, max int) string { return escaper.Replace(clip(s, max)) }

// clip shortens s to max characters, marking the cut with an ellipsis.
func clip(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ") // no newlines from the estate: one item, one line
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// link renders a link to url labelled with estate text; a URL that is not
// plain http(s) or could break out of the link markup is dropped and only
// the label shown.
func link(url, label string) string {
	label = strings.ReplaceAll(esc(label, 80), "|", "¦")
	if !safeURL(url) {
		return label
	}
	return "<" + strings.ReplaceAll(url, "&", "&amp;") + "|" + label + ">"
}

func safeURL(u string) bool {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return false
	}
	return !strings.ContainsAny(u, "<>| \t\r\n") && len(u) <= 1000
}

// runes counts characters the way Slack's limits do.
func runes(s string) int { return utf8.RuneCountInString(s) }

// Escape is esc for Slack text other packages write (reminders and
// escalations): the same neutraliser, clipped to 200 characters.
func Escape(s string) string { return esc(s, 200) }
