package gcs

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/correlate"
)

// FuzzFolderOf checks the grouping on any object name: the folder is a
// prefix of the name; a folder found by path ends at a component that
// carries an id, and no deeper directory does; the folder's URI keeps
// every character of the name recoverable.
func FuzzFolderOf(f *testing.F) {
	for _, s := range [][2]string{
		{"checkpoints/", "checkpoints/bf_1234_replay/chk-17/part-0"},
		{"checkpoints/", "checkpoints/bf_1/x/bf_2_y/z"},
		{"savepoints/", "savepoints/bf_9.tar"},
		{"flink", "flink/job/a"},
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
		folder, byPath := folderOf(sel, prefix, name)
		if !strings.HasPrefix(name, folder) || folder == "" && name != "" {
			t.Fatalf("folderOf(%q, %q) = %q: not a non-empty prefix of the name", prefix, name, folder)
		}
		if byPath {
			comps := strings.Split(strings.TrimSuffix(folder, "/"), "/")
			if _, ok := sel.FromName(comps[len(comps)-1]); !ok {
				t.Fatalf("folderOf(%q) = %q: its last component carries no id", name, folder)
			}
			if strings.HasSuffix(folder, "/") {
				rest := strings.Split(strings.TrimPrefix(name, folder), "/")
				for _, d := range rest[:len(rest)-1] {
					if _, ok := sel.FromName(d); ok && d != "" {
						t.Fatalf("folderOf(%q) = %q though the deeper directory %q carries an id", name, folder, d)
					}
				}
			}
		} else if !strings.HasPrefix(folder, prefix) {
			t.Fatalf("folderOf(%q, %q) = %q: an untied-by-path folder outside its prefix", prefix, name, folder)
		}
		uri := FolderURI("src", "bucket", folder)
		if strings.ContainsAny(strings.TrimPrefix(uri, "gcs://"), "?#") {
			t.Fatalf("URI %q holds an unescaped ? or #", uri)
		}
	})
}
