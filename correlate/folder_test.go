package correlate

import (
	"strings"
	"testing"
)

func TestFolder(t *testing.T) {
	sel := MustSelector()
	for _, tt := range []struct {
		prefix, name, folder string
		byPath               bool
	}{
		{"checkpoints/", "checkpoints/bf_1234_replay/chk-17/part-0", "checkpoints/bf_1234_replay/", true},
		{"checkpoints/", "checkpoints/bf_1/x/bf_2_y/z", "checkpoints/bf_1/x/bf_2_y/", true},
		{"savepoints/", "savepoints/bf_1234_final.tar", "savepoints/bf_1234_final.tar", true},
		{"checkpoints/", "checkpoints/job-x/chk-1/_metadata", "checkpoints/job-x/", false},
		{"tmp/", "tmp/loose-file", "tmp/loose-file", false},
	} {
		folder, byPath := sel.Folder(tt.prefix, tt.name)
		if folder != tt.folder || byPath != tt.byPath {
			t.Errorf("Folder(%q, %q) = %q, %v; want %q, %v", tt.prefix, tt.name, folder, byPath, tt.folder, tt.byPath)
		}
	}
}

// FuzzFolder checks the grouping on any object name: the folder is a
// prefix of the name; a folder found by path ends at a component that
// carries an id, and no deeper directory does.
func FuzzFolder(f *testing.F) {
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
	sel := MustSelector()
	f.Fuzz(func(t *testing.T, prefix, name string) {
		if !strings.HasPrefix(name, prefix) {
			name = prefix + name
		}
		folder, byPath := sel.Folder(prefix, name)
		if !strings.HasPrefix(name, folder) || folder == "" && name != "" {
			t.Fatalf("Folder(%q, %q) = %q: not a non-empty prefix of the name", prefix, name, folder)
		}
		if byPath {
			comps := strings.Split(strings.TrimSuffix(folder, "/"), "/")
			if _, ok := sel.FromName(comps[len(comps)-1]); !ok {
				t.Fatalf("Folder(%q) = %q: its last component carries no id", name, folder)
			}
			if strings.HasSuffix(folder, "/") {
				rest := strings.Split(strings.TrimPrefix(name, folder), "/")
				for _, d := range rest[:len(rest)-1] {
					if _, ok := sel.FromName(d); ok && d != "" {
						t.Fatalf("Folder(%q) = %q though the deeper directory %q carries an id", name, folder, d)
					}
				}
			}
		} else if !strings.HasPrefix(folder, prefix) {
			t.Fatalf("Folder(%q, %q) = %q: an untied-by-path folder outside its prefix", prefix, name, folder)
		}
	})
}
