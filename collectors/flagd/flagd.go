// Package flagd reads flagd flag definition files (the OpenFeature flag
// shape, https://flagd.dev/schema/v0/flags.json), JSON or YAML, and
// reports every flag tied to a backfill as a feature_flag artifact.
//
// Units: every file is one unit, its scope path being the file's path
// relative to the config file's directory ("/"-separated). A directory or
// the fixed directory of a glob is the unit above its files: when it
// cannot be listed, the error at its path covers every file in it. A file
// that cannot be read or parsed as a whole is an error at the file; a flag
// in it that cannot be read is an error at the file too, and the other
// flags are kept.
package flagd

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/flagd"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

//go:embed sample.yaml
var sample string

func init() {
	collectors.Register("flagd", func() collectors.Collector { return &Flagd{} })
}

// maxFileBytes caps one definition file: YAML decoding takes many times a
// file's size in memory, and flag files stay far below this.
const maxFileBytes = 16 << 20

// maxFiles bounds the files one directory or glob may name.
const maxFiles = 10_000

// AttrFile is the path the flag's file was read from (the configured path
// joined to the config file's directory): what the remedy edits.
const AttrFile = "file"

// Flagd reads flag definition files.
type Flagd struct {
	// Files are files, directories (their .json, .yaml and .yml files,
	// recursively) or glob patterns, relative to the config file.
	Files []string `mapstructure:"files"`

	// Base resolves relative paths: the config file's directory.
	Base string `mapstructure:"-"`

	sourceName string
	sel        *correlate.Selector
}

// SetBaseDir resolves relative paths against the config file's directory.
func (f *Flagd) SetBaseDir(dir string) { f.Base = dir }

// SetSourceName sets the name URIs are built under (flagd://<name>/...).
func (f *Flagd) SetSourceName(name string) { f.sourceName = name }

// UseSelector keeps the correlation selector.
func (f *Flagd) UseSelector(s *correlate.Selector) { f.sel = s }

// SampleConfig documents the source entry.
func (f *Flagd) SampleConfig() string { return sample }

// Init checks the config.
func (f *Flagd) Init() error {
	if f.sel == nil {
		f.sel = correlate.MustSelector()
	}
	if len(f.Files) == 0 {
		return errors.New("files: missing; list flagd flag files, directories or glob patterns")
	}
	for n, p := range f.Files {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("files[%d]: empty path", n)
		}
		if _, err := filepath.Match(p, ""); err != nil {
			return fmt.Errorf("files[%d]: %q is not a valid glob pattern", n, p)
		}
	}
	return nil
}

// Collect reads every configured file, directory and glob. A unit that
// fails is recorded at its path and the others are read.
func (f *Flagd) Collect(ctx context.Context, sink collectors.Sink) error {
	done := map[string]bool{}
	for _, p := range f.Files {
		files, err := f.expand(p, sink)
		if err != nil {
			sink.AddError(err.scope, err.err)
			continue
		}
		for _, file := range files {
			if err := ctx.Err(); err != nil {
				return err
			}
			if done[file] {
				continue
			}
			done[file] = true
			f.readFile(file, sink)
		}
	}
	return nil
}

type unitError struct {
	scope string
	err   error
}

// expand lists the files a configured entry names, resolved paths.
func (f *Flagd) expand(p string, sink collectors.Sink) ([]string, *unitError) {
	path := f.resolve(p)
	if !safefile.HasMeta(p) {
		// A path named like a definition file is a file, whatever is
		// there now: a directory in its place is an error at the file,
		// not a file with no flags.
		if isDefinition(path) {
			return []string{path}, nil
		}
		info, err := os.Stat(path)
		if err != nil || !info.IsDir() {
			return []string{path}, nil // reading it says what is wrong
		}
		return f.walk(path, sink)
	}
	// A glob: its fixed directory must list, or nothing it matched can
	// be concluded gone.
	dir := safefile.FixedDir(path)
	if _, err := os.ReadDir(dir); err != nil {
		scope := f.unit(dir)
		return nil, &unitError{scope, fmt.Errorf("flagd: %s: %w (listing the directory of %s)", scope, safefile.PlainError(dir, err), p)}
	}
	matches, err := filepath.Glob(path)
	if err != nil {
		return nil, &unitError{f.unit(dir), fmt.Errorf("flagd: %s: %w", p, err)}
	}
	var out []string
	for _, m := range matches {
		if info, err := os.Stat(m); err == nil && info.IsDir() && !isDefinition(m) {
			continue
		}
		out = append(out, m)
	}
	if len(out) > maxFiles {
		return nil, &unitError{f.unit(dir), fmt.Errorf("flagd: %s matches %d files, more than %d", p, len(out), maxFiles)}
	}
	return out, nil
}

// walk lists a directory's definition files; a directory under it that
// cannot be listed is an error at that directory.
func (f *Flagd) walk(root string, sink collectors.Sink) ([]string, *unitError) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			scope := f.unit(path)
			sink.AddError(scope, fmt.Errorf("flagd: %s: %w", scope, safefile.PlainError(path, err)))
			return fs.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		if isDefinition(path) {
			out = append(out, path)
		}
		if len(out) > maxFiles {
			return fmt.Errorf("more than %d definition files", maxFiles)
		}
		return nil
	})
	if err != nil {
		scope := f.unit(root)
		return nil, &unitError{scope, fmt.Errorf("flagd: %s: %w", scope, safefile.PlainError(root, err))}
	}
	slices.Sort(out)
	return out, nil
}

// readFile reads one definition file and emits its tied flags.
func (f *Flagd) readFile(path string, sink collectors.Sink) {
	scope := f.unit(path)
	data, err := safefile.ReadLimit(path, maxFileBytes)
	if err != nil {
		sink.AddError(scope, fmt.Errorf("flagd: %s: %w", scope, safefile.PlainError(path, err)))
		return
	}
	doc, errs, fatal := flagd.Parse(scope, data, true)
	if fatal != nil {
		sink.AddError(scope, fmt.Errorf("flagd: %w", fatal))
		return
	}
	for _, e := range errs {
		sink.AddError(scope, fmt.Errorf("flagd: %w", e))
	}
	for _, fl := range doc.Flags {
		uri := f.uri(scope, fl.Name)
		id, how, ok := fl.Tie(f.sel, uri, nil, "")
		if !ok {
			continue
		}
		a := fl.Artifact("flagd", uri, scope)
		a.BackfillID, a.Correlation = id, how
		a.SetAttr(AttrFile, path)
		sink.AddArtifact(a)
	}
}

// URI is flagd://<source>/<file path>#<flag>, every path segment and the
// flag name path-escaped. An absolute path keeps its leading "/" (two
// slashes after the source).
func URI(source, file, flag string) string {
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "flagd://" + source + "/" + strings.Join(segs, "/") + "#" + url.PathEscape(flag)
}

func (f *Flagd) uri(file, flag string) string {
	src := f.sourceName
	if src == "" {
		src = "flagd"
	}
	return URI(src, file, flag)
}

// unit is the scope path of a file or directory: its path relative to
// the config file's directory, "/"-separated; the absolute path when it
// lies outside.
func (f *Flagd) unit(path string) string {
	if f.Base != "" {
		if rel, err := filepath.Rel(f.Base, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

func (f *Flagd) resolve(p string) string {
	if !filepath.IsAbs(p) && f.Base != "" {
		return filepath.Join(f.Base, p)
	}
	return filepath.Clean(p)
}

// isDefinition says whether a path is named like a definition file.
func isDefinition(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}
