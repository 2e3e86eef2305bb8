package reports

import "github.com/bfaudit/bfaudit/internal/mdsafe"

// markdownText is the Markdown report's `md`: estate text on one line, its
// Markdown and HTML escaped, mentions and issue references broken and URLs
// shown as inline code. It is the neutralisation GitHub issue bodies get,
// because the report is pasted into PR comments and job summaries where
// GitHub would otherwise ping, link and autolink.
func markdownText(s string) string { return mdsafe.Text(s) }
