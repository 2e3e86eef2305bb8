package github

import (
	"regexp"
	"strings"
)

// Text taken from the estate (artifact names, messages, evidence, purposes)
// goes into issues that notify people. A table named "fix_@payments_team" or
// a purpose mentioning "#123" must ping and link nothing, so every such
// string passes through one of these helpers before it reaches a template.

// zwj is a zero-width joiner: invisible, and enough to break GitHub's
// @mention, #123 and GH-123 autolink patterns.
const zwj = "\u200d"

var (
	// GitHub takes @name as a mention only at the start or after a non-word
	// character, so addresses (runner@proj.iam.gserviceaccount.com) are left
	// intact and stay copyable.
	mentionPattern = regexp.MustCompile(`(^|[^A-Za-z0-9_])@([A-Za-z0-9])`)
	issueRefPat    = regexp.MustCompile(`#([0-9])`)
	ghRefPattern   = regexp.MustCompile(`(?i)\b(GH)-([0-9])`)
	mdEscaper      = strings.NewReplacer(
		`&`, `&amp;`, `<`, `&lt;`, `>`, `&gt;`,
		`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `|`, `\|`,
	)
)

// oneLine collapses newlines and runs of spaces, so estate text cannot start
// a new list item, heading or checkbox of its own.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// defuse breaks mentions and references without otherwise changing the text.
func defuse(s string) string {
	s = mentionPattern.ReplaceAllString(s, "${1}@"+zwj+"${2}")
	s = issueRefPat.ReplaceAllString(s, "#"+zwj+"$1")
	return ghRefPattern.ReplaceAllString(s, "$1-"+zwj+"$2")
}

// plainText is for titles: one line, no mentions or references.
func plainText(s string) string { return defuse(oneLine(s)) }

// markdownText is for prose in the body: one line, Markdown and HTML
// metacharacters escaped (no injected links, images, tables or comments),
// mentions and references broken.
func markdownText(s string) string { return defuse(mdEscaper.Replace(oneLine(s))) }

// codeSpan renders s as inline code, where GitHub expands no mentions or
// references, and which keeps URIs copyable (no hidden characters). The
// fence is longer than any backtick run in s, as CommonMark requires.
func codeSpan(s string) string {
	s = oneLine(s)
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
