package safefile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSaved(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "projects"), 0o755)
	for name, body := range map[string]string{"projects/a.json": `{"a": 1}`, "empty.json": " \n", "null.json": "null", "big.json": strings.Repeat("x", 2<<20)} {
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(body), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "dir.json"), 0o755)
	if b, found, err := ReadSaved(dir, "projects/a.json", 1<<20); err != nil || !found || string(b) != `{"a": 1}` {
		t.Errorf("a file: %q %v %v", b, found, err)
	}
	if _, found, err := ReadSaved(dir, "missing.json", 1<<20); err != nil || found {
		t.Errorf("a missing file is not found, without error: %v %v", found, err)
	}
	for name, want := range map[string]string{
		"empty.json": "empty.json: empty file", "null.json": "null.json: empty file",
		"big.json": "big.json: larger than 1 MiB: refused", "dir.json": "dir.json: ",
	} {
		_, found, err := ReadSaved(dir, name, 1<<20)
		if !found || err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), dir) {
			t.Errorf("%s: found %v, error %v; want one starting %q that does not name the directory", name, found, err, want)
		}
	}
}

// An export's folder lists what keep takes, sorted; a missing folder is
// none, and a file where a folder should be is an error naming it as the
// export does.
func TestListSaved(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"projects/b", "projects/a", "projects/.hidden"} {
		os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "projects", "c.json"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "flat"), nil, 0o644)
	dirs := func(e fs.DirEntry) bool { return e.IsDir() && !strings.HasPrefix(e.Name(), ".") }
	if got, err := ListSaved(dir, "projects", dirs); err != nil || strings.Join(got, ",") != "a,b" {
		t.Errorf("projects: %q %v, want a,b", got, err)
	}
	if got, err := ListSaved(dir, "missing/x", dirs); err != nil || got != nil {
		t.Errorf("a missing folder: %q %v, want none", got, err)
	}
	if _, err := ListSaved(dir, "flat", dirs); err == nil || !strings.HasPrefix(err.Error(), "flat: ") || strings.Contains(err.Error(), dir) {
		t.Errorf("a file: %v, want an error naming flat and not the directory", err)
	}
}
