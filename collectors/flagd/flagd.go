// Package flagd reads flagd flag definition files (the OpenFeature flag
// shape, https://flagd.dev/schema/v0/flags.json, flags as a map or as
// flagd's list), JSON or YAML, and the OpenFeature Operator's FeatureFlag
// manifests among other Kubernetes documents, and reports every flag tied
// to a backfill as a feature_flag artifact.
//
// Units: every configured file, directory or glob is one unit, its scope
// path being the path relative to the config file's directory
// ("/"-separated); a glob's is its fixed directory. Each file read is a
// scope of its own, within its unit: when a directory cannot be listed,
// the error at its path covers every file in it. A file
// that cannot be read or parsed as a whole is an error at the file; a flag
// or a document claiming to hold flags that cannot be read is an error at
// the file too, and the rest is kept. Documents that hold no flags (a
// Deployment beside a FeatureFlag) are skipped with a note.
package flagd

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"

	"github.com/bfaudit/bfaudit/internal/safefile"
)

//go:embed sample.yaml
var sample string

func init() {
	collectors.Register("flagd", func() collectors.Collector { return &Flagd{} }, sample)
}

// maxFileBytes caps one definition file: YAML decoding takes many times a
// file's size in memory, and flag files stay far below this.
const maxFileBytes = 16 << 20

// maxFiles bounds the files one directory or glob may name.
const maxFiles = 10_000

// Attributes of a flag besides those of flag.go.
const (
	// AttrFile is the path the flag's file was read from (the configured
	// path joined to the config file's directory): what the remedy edits.
	AttrFile = "file"
	// AttrShape is how the file holds the flag: "map" or "array" (a flagd
	// definition), "FeatureFlag" or "FeatureFlagConfiguration" (an
	// Operator resource), so the remedy edits the right place.
	AttrShape = "shape"
	// AttrResource is the resource holding the flag (namespace/name, or
	// the name): an Operator resource, or a ConfigMap.
	AttrResource = "resource"
	// AttrEntry is the ConfigMap data key holding the flag's definition.
	AttrEntry = "entry"
)

// Kinds of objects a file unit reports reading.
const (
	readFlags = "flags"
	readOther = "non-flag documents"
)

// maxNotes bounds the notes of one collection; the rest are counted.
const maxNotes = 20

// Flagd reads flag definition files.
type Flagd struct {
	// Files are files, directories (their .json, .yaml and .yml files,
	// recursively) or glob patterns, relative to the config file.
	Files []string `mapstructure:"files"`

	// env: the name URIs are built under (flagd://<name>/...), the
	// selector, and the config file's directory relative paths resolve
	// against.
	env     collectors.Env
	notes   []string
	unnoted int             // files with skipped documents past maxNotes
	done    map[string]bool // files read this run, by any unit
}

// Notes say what was skipped: documents without flags, and what flagd
// only warns of.
func (f *Flagd) Notes() []string {
	out := slices.Clone(f.notes)
	if f.unnoted > 0 {
		out = append(out, fmt.Sprintf("%d more files with notes (documents without flags skipped)", f.unnoted))
	}
	return out
}

// Inputs are the flag files, files, folders or globs.
func (f *Flagd) Inputs() []collectors.Input {
	return collectors.Inputs(f.env.BaseDir, "files", f.Files)
}

func (f *Flagd) note(s string) {
	if len(f.notes) >= maxNotes {
		f.unnoted++
		return
	}
	f.notes = append(f.notes, s)
}

var _ collectors.Collector = (*Flagd)(nil)

// Init checks the config.
func (f *Flagd) Init(env collectors.Env) error {
	f.env = env
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

// Units are the configured files, directories and globs' directories,
// each once. A run starts here: its notes and the files it read so far.
func (f *Flagd) Units(context.Context) ([]string, error) {
	f.notes, f.unnoted, f.done = nil, 0, map[string]bool{}
	var units []string
	for _, p := range f.Files {
		if u := f.entryUnit(p); !slices.Contains(units, u) {
			units = append(units, u)
		}
	}
	return units, nil
}

// entryUnit is the unit of a configured entry: its path, or a glob's
// fixed directory (which must list for anything it matched to count).
func (f *Flagd) entryUnit(p string) string {
	if safefile.HasMeta(p) {
		return f.unit(safefile.FixedDir(f.resolve(p)))
	}
	return f.unit(f.resolve(p))
}

// CollectUnit reads the entries of one unit. An entry that cannot be
// listed fails the unit; a file another entry already read (one named
// and matched by a glob too) is read once.
func (f *Flagd) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	var errs []error
	for _, p := range f.Files {
		if f.entryUnit(p) != unit {
			continue
		}
		files, err := f.expand(ctx, p, sink)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// A file named in the config is meant to hold flags; one found
		// in a directory or by a glob may be anything.
		named := !safefile.HasMeta(p) && len(files) == 1 && files[0] == f.resolve(p)
		for _, file := range files {
			if err := ctx.Err(); err != nil {
				return err
			}
			if f.done[file] {
				continue
			}
			f.done[file] = true
			f.readFile(file, named, sink)
		}
	}
	return errors.Join(errs...)
}

// expand lists the files a configured entry names, resolved paths. Its
// error is at the entry's unit.
func (f *Flagd) expand(ctx context.Context, p string, sink collectors.Sink) ([]string, error) {
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
		return f.walk(ctx, path, sink)
	}
	// A glob: its fixed directory must list, or nothing it matched can
	// be concluded gone.
	dir := safefile.FixedDir(path)
	if _, err := os.ReadDir(dir); err != nil {
		scope := f.unit(dir)
		return nil, fmt.Errorf("flagd: %s: %w (listing the directory of %s)", scope, safefile.PlainError(dir, err), p)
	}
	matches, err := safefile.Glob(path, false)
	if err != nil {
		return nil, fmt.Errorf("flagd: %s: %w", p, err)
	}
	var out []string
	for _, m := range matches {
		if info, err := os.Stat(m); err == nil && info.IsDir() && !isDefinition(m) {
			continue
		}
		out = append(out, m)
	}
	if len(out) > maxFiles {
		return nil, fmt.Errorf("flagd: %s matches %d files, more than %d", p, len(out), maxFiles)
	}
	return out, nil
}

// walk lists a directory's definition files (safefile.Walk: hidden names,
// such as .github's workflows, passed over); a directory under it that
// cannot be listed, or an entry that is not a regular file, is an error
// at its path.
func (f *Flagd) walk(ctx context.Context, root string, sink collectors.Sink) ([]string, error) {
	out, err := safefile.Walk(ctx, root, safefile.WalkOptions{
		Match: isDefinition,
		Max:   maxFiles,
		Fail: func(path string, err error) {
			u := f.unit(path)
			sink.AddError(u, fmt.Errorf("flagd: %s: %w", u, err))
		},
	})
	if err != nil {
		return nil, fmt.Errorf("flagd: %s: %w", f.unit(root), err)
	}
	slices.Sort(out)
	return out, nil
}

// readFile reads one file and emits its tied flags. named says the
// config names the file itself: then a file without any flag definition
// is an error, where one found in a directory is skipped with a note.
func (f *Flagd) readFile(path string, named bool, sink collectors.Sink) {
	scope := f.unit(path)
	data, err := safefile.ReadLimit(path, maxFileBytes)
	if err != nil {
		sink.AddError(scope, fmt.Errorf("flagd: %s: %w", scope, safefile.PlainError(path, err)))
		sink.AddRead(scope, readFlags, 0, 0)
		return
	}
	file, err := ParseFile(scope, data)
	switch {
	case err != nil && errors.Is(err, ErrEmpty) && !named:
		f.note(scope + ": empty, skipped")
		sink.AddRead(scope, readFlags, 0, 0)
		return
	case err != nil:
		sink.AddError(scope, fmt.Errorf("flagd: %w", err))
		sink.AddRead(scope, readFlags, 0, 0)
		return
	}
	for _, e := range file.Errs {
		sink.AddError(scope, fmt.Errorf("flagd: %w", e))
	}
	for _, n := range file.Notes {
		f.note(n)
	}
	if len(file.Other) > 0 {
		sink.AddRead(scope, readOther, len(file.Other), 0)
		if len(file.Sets) == 0 && len(file.Errs) == 0 && named {
			sink.AddError(scope, fmt.Errorf("flagd: %s: holds no flag definition, only %s", scope, others(file.Other)))
		} else {
			f.note(fmt.Sprintf("%s: skipped %s", scope, others(file.Other)))
		}
	}
	read := 0
	seen := map[string]bool{}
	for _, set := range file.Sets {
		for _, fl := range set.Flags {
			uri := f.uri(scope, fl.Name)
			var holder map[string]string
			holderName := ""
			if set.Resource != nil {
				uri = ResourceURI(f.env.Source, scope, set.Resource, set.Entry, fl.Name)
				holder, holderName = set.Resource.Labels, set.Resource.Name
			}
			if seen[uri] {
				where := scope
				if fl.Line > 0 {
					where += ":" + strconv.Itoa(fl.Line)
				}
				sink.AddError(scope, fmt.Errorf("flagd: %s: flag %s: defined twice in this file", where, fl.Name))
				continue
			}
			seen[uri] = true
			read++
			id, how, ok := fl.Tie(f.env.Selector, uri, holder, holderName)
			if !ok {
				continue
			}
			a := fl.Artifact("flagd", uri, scope)
			a.BackfillID, a.Correlation = id, how
			a.SetAttr(AttrFile, path)
			a.SetAttr(AttrShape, set.Shape)
			if set.Resource != nil {
				a.SetAttr(AttrResource, set.Resource.Ref())
			}
			if set.Entry != "" {
				a.SetAttr(AttrEntry, set.Entry)
			}
			sink.AddArtifact(a)
		}
	}
	sink.AddRead(scope, readFlags, read, 0)
}

// others words the documents a file holds besides flags: "3 documents
// without flags (apps/v1 Deployment web, v1 Service web, ...)".
func others(docs []string) string {
	const shown = 4
	list := docs
	more := ""
	if len(list) > shown {
		list, more = list[:shown], ", ..."
	}
	n := "1 document"
	if len(docs) != 1 {
		n = strconv.Itoa(len(docs)) + " documents"
	}
	return n + " without flags (" + strings.Join(list, ", ") + more + ")"
}

// unit is the scope path of a file or directory: its path relative to
// the config file's directory, "/"-separated; the absolute path when it
// lies outside.
func (f *Flagd) unit(path string) string {
	if base := f.env.BaseDir; base != "" {
		if rel, err := filepath.Rel(base, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

func (f *Flagd) resolve(p string) string { return filepath.Clean(f.env.Path(p)) }

// isDefinition says whether a path is named like a definition file.
func isDefinition(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}
