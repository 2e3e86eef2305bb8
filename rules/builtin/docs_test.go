package builtin_test

import (
	"bytes"
	"flag"
	_ "github.com/bfaudit/bfaudit/collectors/all" // every system's commands
	"os"
	"path/filepath"
	"testing"

	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md from the rules' metadata")

// TestDocsUpToDate fails when docs/rules.md no longer matches the rules'
// metadata, so `make test` catches a rule changed without its docs.
func TestDocsUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "rules.md")
	want := rules.Markdown(rules.All())
	// The fix examples section is rendered by remedy from the same rules.
	var refs []remedy.RuleRef
	for _, r := range rules.All() {
		refs = append(refs, remedy.RuleRef{ID: r.ID, Name: r.Name})
	}
	want = append(want, remedy.DocsMarkdown(refs)...)
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v; create it with: %s", path, err, rules.DocsRegenerate)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/rules.md is stale: the rules' metadata changed. Regenerate it with:\n  %s", rules.DocsRegenerate)
	}
}
