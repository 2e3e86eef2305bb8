// Package mdsafe neutralises text taken from the estate (artifact names,
// messages, purposes, owners) before it goes into Markdown that GitHub
// renders: issue bodies and the Markdown report, which people paste into
// PR comments and job summaries. A table named "fix_@payments_team", a
// purpose mentioning "#123" or a message carrying a URL must ping no one,
// link no issue and add no link. Both outputs use this one package, so
// they cannot drift apart.
package mdsafe

import (
	"regexp"
	"strings"
)

// ZWJ is a zero-width joiner: invisible, and enough to break GitHub's
// @mention, #123 and GH-123 patterns.
const ZWJ = "\u200d"

var (
	// GitHub takes @name as a mention only at the start or after a non-word
	// character, so addresses (runner@proj.iam.gserviceaccount.com) are left
	// intact and stay copyable.
	mentionPattern = regexp.MustCompile(`(^|[^A-Za-z0-9_])@([A-Za-z0-9])`)
	issueRefPat    = regexp.MustCompile(`#([0-9])`)
	ghRefPattern   = regexp.MustCompile(`(?i)\b(GH)-([0-9])`)
	// urlPattern finds what a renderer may turn into a link: any
	// scheme://... (GitHub links http, https and ftp; other renderers link
	// more) and www.... A URL ends at a space or at a character that would
	// end a code span or a table cell, or start HTML.
	urlPattern = regexp.MustCompile("(?i)(?:\\b[a-z][a-z0-9+.-]*://|\\bwww\\.)[^\\s<>|`]*")
	escaper    = strings.NewReplacer(
		`&`, `&amp;`, `<`, `&lt;`, `>`, `&gt;`,
		`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `|`, `\|`,
	)
)

// OneLine collapses newlines and runs of spaces, so estate text cannot start
// a new list item, heading or checkbox of its own.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Defuse breaks mentions and issue references without otherwise changing
// the text.
func Defuse(s string) string {
	// Each pattern runs only on text that has the character it starts
	// from: the Markdown report defuses every cell of tables thousands of
	// rows long, and most cells have none.
	if may(s, '@', func(i int) bool { return i == 0 || !isWord(s[i-1]) }) {
		s = mentionPattern.ReplaceAllString(s, "${1}@"+ZWJ+"${2}")
	}
	if may(s, '#', func(int) bool { return true }) {
		s = issueRefPat.ReplaceAllString(s, "#"+ZWJ+"$1")
	}
	if may(s, '-', func(i int) bool { return i >= 2 && s[i-2]|0x20 == 'g' && s[i-1]|0x20 == 'h' }) {
		s = ghRefPattern.ReplaceAllString(s, "$1-"+ZWJ+"$2")
	}
	return s
}

// may reports whether s has the byte c, passing before(i), followed by
// what mentions, references and GH-references need after it: a letter or
// digit (for # and -, a digit). It is true wherever the pattern could
// match, so it only saves running the pattern where it cannot.
func may(s string, c byte, before func(i int) bool) bool {
	for i := 0; i < len(s)-1; i++ {
		if s[i] != c || !before(i) {
			continue
		}
		next := s[i+1]
		if '0' <= next && next <= '9' || c == '@' && isWord(next) && next != '_' {
			return true
		}
	}
	return false
}

func isWord(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
}

// Plain is for titles, which GitHub does not render as Markdown but where
// it still links references: one line, no mentions or references.
func Plain(s string) string { return Defuse(OneLine(s)) }

// Text is for prose: one line; Markdown and HTML metacharacters escaped
// (no injected links, images, tables, comments or checklist items);
// mentions and references broken; and every URL shown whole as inline
// code, where no renderer links it and it stays readable and copyable (a
// zero-width character inside it would break a copied URL). Safe in a
// table cell.
func Text(s string) string {
	s = OneLine(s)
	if !strings.Contains(s, "://") && !strings.Contains(strings.ToLower(s), "www.") {
		return prose(s) // no URL: the common case, without the search
	}
	var b strings.Builder
	last := 0
	for _, m := range urlPattern.FindAllStringIndex(s, -1) {
		end := m[0] + len(trimURL(s[m[0]:m[1]]))
		b.WriteString(prose(s[last:m[0]]))
		b.WriteString(Code(s[m[0]:end]))
		last = end
	}
	b.WriteString(prose(s[last:]))
	return b.String()
}

func prose(s string) string { return Defuse(escaper.Replace(s)) }

// trimURL leaves the punctuation that ends a sentence, and a closing
// parenthesis the URL did not open, outside the URL, as GitHub does.
func trimURL(u string) string {
	for u != "" {
		last := u[len(u)-1]
		switch {
		case strings.IndexByte(`.,;:!?'"*_~`, last) >= 0:
		case last == ')' && strings.Count(u, ")") > strings.Count(u, "("):
		default:
			return u
		}
		u = u[:len(u)-1]
	}
	return u
}

// Code renders s as inline code, where GitHub expands no mentions or
// references and links nothing, and which keeps names and URIs copyable
// (no hidden characters). The fence is longer than any backtick run in s,
// as CommonMark requires.
func Code(s string) string {
	s = OneLine(s)
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
