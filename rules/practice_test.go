package rules

import (
	"os"
	"strings"
	"testing"
)

// TestPracticeSectionsMatchThePage holds the anchors rules cite to the
// headings of docs/practice.md: a renamed section fails here, not as a
// dead link in rules.md and every report.
func TestPracticeSectionsMatchThePage(t *testing.T) {
	page, err := os.ReadFile("../docs/practice.md")
	if err != nil {
		t.Fatal(err)
	}
	onPage := map[string]string{}
	for _, line := range strings.Split(string(page), "\n") {
		if title, ok := strings.CutPrefix(line, "## "); ok {
			onPage[headingAnchor(title)] = title
		}
	}
	for a, title := range PracticeTitles {
		if onPage[a] != title {
			t.Errorf("practice section %q (%s) is not a heading of docs/practice.md", a, title)
		}
	}
	for a, title := range onPage {
		if PracticeTitles[a] == "" {
			t.Errorf("docs/practice.md section %q is missing from PracticeTitles", title)
		}
	}
}

// headingAnchor is the id GitHub gives a heading: lower case, spaces to hyphens,
// punctuation dropped.
func headingAnchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
