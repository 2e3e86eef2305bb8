package gcs

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// FuzzFolderURI checks that a checkpoint folder's URI (correlate's
// Selector.Folder groups the objects; its own fuzz target checks the
// grouping) keeps every character of the name recoverable.
func FuzzFolderURI(f *testing.F) {
	for _, s := range [][2]string{
		{"checkpoints/", "checkpoints/bf_1234_replay/chk-17/part-0"},
		{"c/", "c//bf_3//"},
		{"c/", "c/plain/file?#%"},
		{"", "bf-12"},
	} {
		f.Add(s[0], s[1])
	}
	sel := correlate.MustSelector()
	f.Fuzz(func(t *testing.T, prefix, name string) {
		if !strings.HasPrefix(name, prefix) {
			name = prefix + name
		}
		folder, _ := sel.Folder(prefix, name)
		uri := FolderURI("src", "bucket", folder)
		if strings.ContainsAny(strings.TrimPrefix(uri, "gcs://"), "?#") {
			t.Fatalf("URI %q holds an unescaped ? or #", uri)
		}
		if got, ok := ParseGCS(&model.Artifact{URI: uri}); ok && got.Path != folder {
			t.Fatalf("URI %q read back as %q, want %q", uri, got.Path, folder)
		}
	})
}
