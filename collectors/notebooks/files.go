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

// collectFiles reads every notebook the paths name: a file, each *.ipynb
// under a directory (checkpoint copies in .ipynb_checkpoints included:
// they keep the outputs a cleared notebook lost), each match of a glob.
// Each file is its own unit; a directory that cannot be walked is an
// error at the directory, a named file that is missing at the file.
func (n *Notebooks) collectFiles(ctx context.Context, sink collectors.Sink) {
	seen := map[string]bool{}
	count := 0
	read := func(display, full string) {
		if seen[full] || ctx.Err() != nil {
			return
		}
		seen[full] = true
		count++
		if count > n.MaxNotebooks {
			if count == n.MaxNotebooks+1 {
				sink.AddError(scope(display), fmt.Errorf("notebooks source %s: more than max_notebooks (%d) notebooks; %s and those after it were not read",
					n.sourceName(), n.MaxNotebooks, display))
			}
			return
		}
		if err := n.readFile(ctx, sink, display, full); err != nil {
			sink.AddError(scope(display), scrubbed(fmt.Errorf("notebooks source %s: %s: %w", n.sourceName(), display, err)))
		}
	}
	for _, p := range n.Paths {
		full := p
		if !filepath.IsAbs(p) && n.baseDir != "" {
			full = filepath.Join(n.baseDir, p)
		}
		targets := []string{p}
		if safefile.HasMeta(p) {
			matches, err := filepath.Glob(full)
			if err != nil {
				sink.AddError(scope(p), scrubbed(fmt.Errorf("notebooks source %s: paths %q: %w", n.sourceName(), p, err)))
				continue
			}
			targets = targets[:0]
			for _, m := range matches {
				rel := m
				if n.baseDir != "" && !filepath.IsAbs(p) {
					if r, err := filepath.Rel(n.baseDir, m); err == nil {
						rel = r
					}
				}
				targets = append(targets, rel)
			}
		}
		for _, t := range targets {
			tf := t
			if !filepath.IsAbs(t) && n.baseDir != "" {
				tf = filepath.Join(n.baseDir, t)
			}
			n.walk(ctx, sink, t, tf, read)
		}
	}
}

// walk reads target when it is a file, or every *.ipynb under it when it
// is a directory (symlinked directories are not followed).
func (n *Notebooks) walk(ctx context.Context, sink collectors.Sink, display, full string, read func(display, full string)) {
	st, err := os.Stat(full)
	if err != nil {
		sink.AddError(scope(display), scrubbed(fmt.Errorf("notebooks source %s: %s: %w", n.sourceName(), display, pathError(err))))
		return
	}
	if !st.IsDir() {
		read(filepath.ToSlash(display), full)
		return
	}
	var files []string
	err = filepath.WalkDir(full, func(path string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rel, _ := filepath.Rel(full, path)
		shown := filepath.ToSlash(filepath.Join(display, rel))
		if err != nil {
			sink.AddError(scope(shown), scrubbed(fmt.Errorf("notebooks source %s: %s: %w", n.sourceName(), shown, pathError(err))))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".ipynb") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		sink.AddError(scope(display), scrubbed(fmt.Errorf("notebooks source %s: %s: %w", n.sourceName(), display, err)))
	}
	sort.Strings(files)
	for _, rel := range files {
		read(filepath.ToSlash(filepath.Join(display, rel)), filepath.Join(full, rel))
	}
}

// readFile reads one notebook file, capped, and emits it.
func (n *Notebooks) readFile(ctx context.Context, sink collectors.Sink, display, full string) error {
	st, err := os.Stat(full)
	if err != nil {
		return pathError(err)
	}
	raw, err := safefile.ReadLimit(full, n.MaxNotebookBytes)
	if err != nil {
		return pathError(err)
	}
	return n.emit(ctx, sink, display, raw, st.ModTime().UTC())
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
