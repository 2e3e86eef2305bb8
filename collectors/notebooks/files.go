package notebooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

// findFiles finds every notebook the paths name: a file, each *.ipynb
// under a directory (checkpoint copies in .ipynb_checkpoints included:
// they keep the outputs a cleared notebook lost), each match of a glob.
// Each file is its own unit; a directory that cannot be walked is an
// error at the directory, a named file that is missing at the file.
//
// A notebook's identity is its path below its root: root when set, else
// the directory its paths entry names (a directory itself, a file's
// directory, a glob's fixed directory), so that corrections/bf-1.ipynb
// read from paths: [corrections] is bf-1.ipynb, as a Jupyter server
// whose root is corrections names it.
func (n *Notebooks) findFiles(ctx context.Context) {
	f := &fileWalk{n: n, found: n.found, seen: map[string]bool{}, owner: map[string]string{}}
	root := ""
	if n.Root != "" {
		root = n.env.Path(n.Root)
	}
	for _, p := range n.Paths {
		full := n.env.Path(p)
		entryRoot := root
		if entryRoot != "" && !under(full, entryRoot) {
			f.found.fail(scope(p), fmt.Errorf("not under root %s: a notebook's identity is its path below root", n.Root))
			continue
		}
		if !safefile.HasMeta(p) {
			f.walk(ctx, p, full, entryRoot)
			continue
		}
		// Hidden too: a glob reaches checkpoint copies as a folder does.
		matches, err := safefile.Glob(full, true)
		if err != nil {
			f.found.fail(scope(p), scrubbed(fmt.Errorf("paths %q: %w", p, err)))
			continue
		}
		if entryRoot == "" {
			entryRoot = safefile.FixedDir(full)
		}
		for _, m := range matches {
			rel := m
			if n.env.BaseDir != "" && !filepath.IsAbs(p) {
				if r, err := filepath.Rel(n.env.BaseDir, m); err == nil {
					rel = r
				}
			}
			f.walk(ctx, rel, m, entryRoot)
		}
	}
}

// under reports whether path is dir or below it, by their names.
func under(path, dir string) bool {
	r, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// fileWalk is one search for files: the files found (each once, however
// many entries name it) and which file holds each identity.
type fileWalk struct {
	n     *Notebooks
	found *units
	seen  map[string]bool   // resolved paths found
	owner map[string]string // identity -> the path that has it
	count int
}

// walk reads target when it is a file, or every *.ipynb under it when it
// is a directory (symlinked directories are not followed). root is the
// directory identities are relative to; "" makes it the target's own.
func (f *fileWalk) walk(ctx context.Context, display, full, root string) {
	st, err := os.Stat(full)
	if err != nil {
		f.found.fail(scope(display), scrubbed(pathError(err)))
		return
	}
	if !st.IsDir() {
		if root == "" {
			root = filepath.Dir(full)
		}
		f.add(ctx, filepath.ToSlash(display), full, root)
		return
	}
	if root == "" {
		root = full
	}
	// Hidden: checkpoint copies in .ipynb_checkpoints are read too.
	paths, err := safefile.Walk(ctx, full, safefile.WalkOptions{
		Match:  func(name string) bool { return strings.EqualFold(filepath.Ext(name), ".ipynb") },
		Hidden: true,
		Fail: func(path string, err error) {
			rel, _ := filepath.Rel(full, path)
			f.found.fail(scope(filepath.ToSlash(filepath.Join(display, rel))), scrubbed(err))
		},
	})
	if err != nil {
		f.found.fail(scope(display), scrubbed(err))
	}
	files := make([]string, len(paths))
	for i, p := range paths {
		files[i], _ = filepath.Rel(full, p)
	}
	sort.Strings(files)
	for _, rel := range files {
		f.add(ctx, filepath.ToSlash(filepath.Join(display, rel)), filepath.Join(full, rel), root)
	}
}

// add declares one notebook file once, within max_notebooks, under its
// identity; a file that cannot have it is an error at the file.
func (f *fileWalk) add(ctx context.Context, display, full, root string) {
	n := f.n
	if f.seen[full] || ctx.Err() != nil {
		return
	}
	f.seen[full] = true
	f.count++
	if f.count > n.MaxNotebooks {
		if f.count == n.MaxNotebooks+1 {
			f.found.fail(scope(display), fmt.Errorf("more than max_notebooks (%d) notebooks; this one and those after it were not read", n.MaxNotebooks))
		}
		return
	}
	rel, err := filepath.Rel(root, full)
	if err != nil {
		rel = filepath.Base(full)
	}
	rel = filepath.ToSlash(rel)
	if other, dup := f.owner[rel]; dup {
		f.found.fail(scope(display), fmt.Errorf("not read: its path below its root, %s, is also %s's, and a notebook's identity is that path; set root to a directory that holds both", rel, other))
		return
	}
	f.owner[rel] = display
	f.found.notebook(ref{path: display, rel: rel}, full)
}

// readFile reads one notebook file, capped, and emits it.
func (n *Notebooks) readFile(ctx context.Context, sink collectors.Sink, nbRef ref, full string) error {
	st, err := os.Stat(full)
	if err != nil {
		return pathError(err)
	}
	raw, err := safefile.ReadLimit(full, n.MaxNotebookBytes)
	if err != nil {
		return safefile.PlainError(full, err)
	}
	return n.emit(ctx, sink, nbRef, raw, st.ModTime().UTC())
}

// pathError drops the path an os error repeats (the caller names the file
// as configured).
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
