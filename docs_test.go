package bfaudit_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownLink finds the target of a Markdown link or an <img src>.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)|<img src="([^"]+)"`)

// userDocs are the pages a user reads: the README, docs/ and the bench notes.
func userDocs(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "bench/README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// TestDocsLinksResolve: every relative link in the docs names a file that
// exists in the repository, so no page sends a reader to nothing.
func TestDocsLinksResolve(t *testing.T) {
	for _, page := range userDocs(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		inFence := false
		for i, line := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
				target := m[1] + m[2]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, _, _ = strings.Cut(target, "#")
				if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
					t.Errorf("%s:%d: link to %s: no such file", page, i+1, target)
				}
			}
		}
	}
}

// TestDocsStandAlone: the docs, the rules and the examples name nothing a
// user does not have: the practice is docs/practice.md.
func TestDocsStandAlone(t *testing.T) {
	outside := regexp.MustCompile(`backfill-cleanup\.txt|backfill-scheduling\.txt|backfills-and-reprocessing\.txt|\bthe seeds?\b|seed documents?`)
	for _, root := range []string{"README.md", "docs", "rules", "examples", "templates", "cmd", "fix", "remedy", "model", "reports"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(path, "testdata") {
				return err
			}
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(text), "\n") {
				if loc := outside.FindString(line); loc != "" {
					t.Errorf("%s:%d: %q points outside the repository; cite docs/practice.md", path, i+1, loc)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestDocsIndexListsEveryPage keeps docs/index.md the map of the docs.
func TestDocsIndexListsEveryPage(t *testing.T) {
	index, err := os.ReadFile("docs/index.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range userDocs(t) {
		rel, _ := filepath.Rel("docs", page)
		if rel == "index.md" || page == "README.md" {
			continue
		}
		if !strings.Contains(string(index), "("+filepath.ToSlash(rel)+")") {
			t.Errorf("docs/index.md does not list %s", page)
		}
	}
}

// TestReadmeIsAFrontPage keeps the README to what it is, the quick start,
// the three journeys and links: the rest lives in docs/.
func TestReadmeIsAFrontPage(t *testing.T) {
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(text), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; keep it to 250 and move the rest to docs/", n)
	}
}
