package safefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestWalk(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.yaml", "b.txt", ".yamllint.yaml", ".github/workflows/ci.yaml", "sub/c.yml", "sub/d.yaml", ".ipynb_checkpoints/e.yaml"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "a.yaml"), filepath.Join(dir, "sub", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "sub", "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := func(name string) bool { return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") }
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	var failed []string
	fail := func(path string, err error) { failed = append(failed, rel([]string{path})[0]+": "+err.Error()) }

	got, err := Walk(context.Background(), dir, WalkOptions{Match: yaml, Fail: fail})
	if want := []string{"a.yaml", "sub/c.yml", "sub/d.yaml", "sub/link.yaml"}; err != nil || !slices.Equal(rel(got), want) {
		t.Errorf("Walk = %q, %v; want %q (hidden names passed over, the FIFO not listed)", rel(got), err, want)
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "sub/fifo.yaml: not read: not a regular file") {
		t.Errorf("errors: %q, want the FIFO's", failed)
	}

	got, _ = Walk(context.Background(), dir, WalkOptions{Match: yaml, Hidden: true})
	if want := []string{".github/workflows/ci.yaml", ".ipynb_checkpoints/e.yaml", ".yamllint.yaml", "a.yaml", "sub/c.yml", "sub/d.yaml", "sub/link.yaml"}; !slices.Equal(rel(got), want) {
		t.Errorf("Hidden: %q, want %q", rel(got), want)
	}

	got, err = Walk(context.Background(), dir, WalkOptions{Match: yaml, Max: 2})
	if !errors.Is(err, ErrTooMany) || !slices.Equal(rel(got), []string{"a.yaml", "sub/c.yml"}) {
		t.Errorf("Max 2: %q, %v; want the first two and ErrTooMany", rel(got), err)
	}

	// A root that is a link to a directory is entered.
	link := filepath.Join(t.TempDir(), "rules")
	if err := os.Symlink(filepath.Join(dir, "sub"), link); err != nil {
		t.Fatal(err)
	}
	if got, err := Walk(context.Background(), link, WalkOptions{Match: func(n string) bool { return n == "c.yml" }}); err != nil || len(got) != 1 {
		t.Errorf("linked root: %q, %v", got, err)
	}

	if _, err := Walk(context.Background(), filepath.Join(dir, "missing"), WalkOptions{}); err == nil || strings.Contains(err.Error(), dir) {
		t.Errorf("missing root: %v, want an error without this machine's path", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Walk(ctx, dir, WalkOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// A glob's wildcards do not match a hidden name, as in a shell, unless
// the pattern's segment starts with "." itself or hidden is asked for.
func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"rules/a.yaml", "rules/.yamllint.yaml", ".github/w.yaml", "rules/sub/b.yaml"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		pattern string
		hidden  bool
		want    []string
	}{
		{"rules/*.yaml", false, []string{"rules/a.yaml"}},
		{"rules/*.yaml", true, []string{"rules/.yamllint.yaml", "rules/a.yaml"}},
		{"rules/.*.yaml", false, []string{"rules/.yamllint.yaml"}},
		{"*/*.yaml", false, []string{"rules/a.yaml"}},
		{".github/*.yaml", false, []string{".github/w.yaml"}},
		{"rules/./*/b.yaml", false, []string{"rules/sub/b.yaml"}},
	} {
		got, err := Glob(filepath.Join(dir, tt.pattern), tt.hidden)
		var rel []string
		for _, g := range got {
			r, _ := filepath.Rel(dir, g)
			rel = append(rel, filepath.ToSlash(r))
		}
		if err != nil || !slices.Equal(rel, tt.want) {
			t.Errorf("Glob(%q, %v) = %q, %v; want %q", tt.pattern, tt.hidden, rel, err, tt.want)
		}
	}
}
