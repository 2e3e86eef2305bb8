package github

import "github.com/bfaudit/bfaudit/internal/mdsafe"

// Text taken from the estate (artifact names, messages, evidence, purposes)
// goes into issues that notify people. A table named "fix_@payments_team",
// a purpose mentioning "#123" or a message carrying a URL must ping, link
// and autolink nothing, so every such string passes through one of these
// before it reaches a template. They are internal/mdsafe's, which the
// Markdown report uses too: one neutralisation for both.

// plainText is for titles: one line, no mentions or references.
func plainText(s string) string { return mdsafe.Plain(s) }

// markdownText is for prose in the body: one line, Markdown and HTML
// escaped, mentions and references broken, URLs as inline code.
func markdownText(s string) string { return mdsafe.Text(s) }

// codeSpan renders names and URIs as inline code: nothing expands there,
// and they stay copyable.
func codeSpan(s string) string { return mdsafe.Code(s) }

// Text and Code are the same neutraliser for GitHub text other packages
// write (reminder and escalation comments): estate text in prose, and
// names and URIs as inline code.
func Text(s string) string { return markdownText(s) }

// Code renders a name or URI as inline code; see Text.
func Code(s string) string { return codeSpan(s) }
