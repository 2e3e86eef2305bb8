// Package dbt reads dbt's artifacts (target/manifest.json and
// target/run_results.json) and reports lineage: an edge from every table
// a model, seed or snapshot is built from to that table, and each
// table's last build, with what rebuilds it (`dbt build --select <node>`).
//
// Units: every manifest and every run_results file is one unit, its scope
// path being the file's path relative to the config file's directory
// ("/"-separated). A manifest that cannot be read or parsed is an error at
// its path, and nothing from it is reported. Every run_results file is
// read first, by Units: each manifest's builds are the latest of all
// runs. A run_results file that cannot be read is an error at its path,
// and the builds it may have held are not concluded from the others.
// Only local files are read (no gs:// or other object store).
package dbt

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

//go:embed sample.yaml
var sample string

// System names dbt in edges and builds.
const System = "dbt"

func init() {
	collectors.Register("dbt", func() collectors.Collector { return &DBT{} }, sample)
}

// maxFileBytes caps one artifact: manifests of large projects reach
// hundreds of megabytes, and decoding takes a few times a file's size.
const maxFileBytes = 512 << 20

// maxFiles bounds the files one glob may name.
const maxFiles = 10_000

// DBT reads dbt artifacts.
type DBT struct {
	// Manifests are manifest.json files, directories holding one (a
	// project's target/), or glob patterns, relative to the config file.
	Manifests []string `mapstructure:"manifests"`
	// RunResults are run_results.json files, directories holding one, or
	// glob patterns (runs/*/run_results.json): every run read, the latest
	// build of each node counts.
	RunResults []string `mapstructure:"run_results"`

	env   collectors.Env
	notes []string
	// runs and parts are this run's, set by Units: every manifest's
	// builds are the latest across every run_results file read.
	runs  *latest
	parts map[string]*part
}

// part is what one declared unit holds: a run_results file, read by
// Units, a manifest, read by CollectUnit, or the failure of a glob at
// its directory.
type part struct {
	runPath, manifestPath string
	run                   *RunResults
	runErr                error
	errs                  []error
}

// Notes says which runs built nothing (a dbt compile, docs generate, test
// ...): their results are read, and none is a build.
func (d *DBT) Notes() []string { return d.notes }

// ReadsLineage says this source reads lineage: every dbt project is lineage.
func (d *DBT) ReadsLineage() bool { return true }

// Init checks the config.
func (d *DBT) Init(env collectors.Env) error {
	d.env = env
	if len(d.Manifests) == 0 {
		return errors.New("manifests: missing; list dbt manifest.json files, target directories or glob patterns")
	}
	for _, l := range []struct {
		key  string
		list []string
	}{{"manifests", d.Manifests}, {"run_results", d.RunResults}} {
		key := l.key
		for n, p := range l.list {
			switch {
			case strings.TrimSpace(p) == "":
				return fmt.Errorf("%s[%d]: empty path", key, n)
			case strings.Contains(p, "://"):
				return fmt.Errorf("%s[%d]: %q: only local files are read; copy the artifacts next to the config (gsutil cp, dbt's target/)", key, n, p)
			}
			if _, err := filepath.Match(p, ""); err != nil {
				return fmt.Errorf("%s[%d]: %q is not a valid glob pattern", key, n, p)
			}
		}
	}
	return nil
}

// Inputs are the manifests and run results, files, folders or globs.
func (d *DBT) Inputs() []collectors.Input {
	return append(collectors.Inputs(d.env.BaseDir, "manifests", d.Manifests), collectors.Inputs(d.env.BaseDir, "run_results", d.RunResults)...)
}

// Units are the run_results files and the manifests the entries name (the
// directory of a glob that failed, to say so). Every run_results file is
// read here: each manifest's builds are the latest across all of them.
func (d *DBT) Units(ctx context.Context) ([]string, error) {
	d.notes, d.runs, d.parts = nil, newLatest(), map[string]*part{}
	var units []string
	at := func(scope string) *part {
		p := d.parts[scope]
		if p == nil {
			p = &part{}
			d.parts[scope] = p
			units = append(units, scope)
		}
		return p
	}
	failed := func(scope string, err error) { at(scope).errs = append(at(scope).errs, err) }
	for _, path := range d.expand(d.RunResults, "run_results.json", failed) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		scope := d.unit(path)
		p := at(scope)
		p.runPath = path
		if p.run, p.runErr = readWith(path, scope, ParseRunResults); p.runErr == nil {
			d.runs.add(scope, p.run)
		}
	}
	for _, path := range d.expand(d.Manifests, "manifest.json", failed) {
		at(d.unit(path)).manifestPath = path
	}
	return units, nil
}

// CollectUnit reports a run_results file and reads a manifest, with its
// edges and builds.
//
// Each unit says what it read: a manifest its nodes (sources included)
// and the edges it gave, a run_results file its results and how many of
// them are builds.
func (d *DBT) CollectUnit(_ context.Context, scope string, sink collectors.Sink) error {
	p := d.parts[scope]
	if p == nil {
		return fmt.Errorf("dbt: %s is not a unit of this run", scope)
	}
	errs := slices.Clone(p.errs)
	if p.runPath != "" {
		if p.runErr != nil {
			errs = append(errs, p.runErr)
		} else {
			run := p.run
			sink.AddRead(scope, "results", run.Read, 0)
			sink.AddRead(scope, "builds", len(run.Results), 0)
			if !run.Builds() && run.Read > 0 {
				d.notes = append(d.notes, noteOf(scope, run))
			}
		}
	}
	if p.manifestPath != "" {
		if err := d.readManifest(p.manifestPath, scope, sink); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (d *DBT) readManifest(path, scope string, sink collectors.Sink) error {
	m, err := readWith(path, scope, ParseManifest)
	if err != nil {
		return err
	}
	sink.AddRead(scope, "nodes", m.Nodes, 0)
	sink.AddRead(scope, "edges", len(m.Edges), 0)
	for _, e := range m.Edges {
		e.Scope = scope
		sink.AddEdge(e)
	}
	for _, r := range m.Relations {
		sink.AddBuild(d.runs.build(r, scope))
	}
	return nil
}

// commandNames are the commands whose args.which is not what users type.
var commandNames = map[string]string{"generate": "docs generate", "freshness": "source freshness"}

// noteOf says what a run that built nothing was.
func noteOf(scope string, run *RunResults) string {
	what := "a command that does not say what it was (args.which)"
	if run.Command != "" {
		what = "dbt " + commandNames[run.Command]
		if commandNames[run.Command] == "" {
			what = "dbt " + run.Command
		}
	}
	n := fmt.Sprintf("%d results", run.Read)
	if run.Read == 1 {
		n = "1 result"
	}
	built := "none of them is a build"
	if k := len(run.Results); k > 0 {
		built = fmt.Sprintf("%d of them ran in the warehouse and count as builds", k)
	}
	return fmt.Sprintf("%s: written by %s, which builds nothing: %s read, %s", scope, what, n, built)
}

// readWith reads a file under the cap and parses it. Errors are recorded
// at the unit, which names the file, so they do not name it again (nor the
// resolved absolute path): "line 2: nodes: expected an object".
func readWith[T any](path, scope string, parse func(string, []byte) (T, error)) (T, error) {
	var zero T
	data, err := safefile.ReadLimit(path, maxFileBytes)
	if err != nil {
		return zero, safefile.PlainError(path, err)
	}
	v, err := parse(scope, data)
	if err != nil {
		return zero, atUnit(scope, err)
	}
	return v, nil
}

// atUnit drops the parsers' leading "path: " (or "path:line: ", kept as
// "line N: ") from an error recorded at that path's unit.
func atUnit(scope string, err error) error {
	rest, ok := strings.CutPrefix(err.Error(), scope+":")
	if !ok {
		return err
	}
	if line, after, ok := strings.Cut(rest, ": "); ok && line != "" && strings.Trim(line, "0123456789") == "" {
		return fmt.Errorf("line %s: %s", line, after)
	}
	return errors.New(strings.TrimPrefix(rest, " "))
}

// expand lists the files the entries name, resolved and each once. A
// directory means the artifact of that name inside it; a glob whose
// directory does not list, or that matches nothing, is an error at that
// directory (failed), so nothing it would have named is concluded.
func (d *DBT) expand(entries []string, artifact string, failed func(scope string, err error)) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, e := range entries {
		path := d.resolve(e)
		if !safefile.HasMeta(e) {
			add(artifactIn(path, artifact)) // reading it says what is wrong
			continue
		}
		dir := safefile.FixedDir(path)
		scope := d.unit(dir)
		if _, err := os.ReadDir(dir); err != nil {
			failed(scope, fmt.Errorf("%w (listing the directory of %s)", safefile.PlainError(dir, err), e))
			continue
		}
		matches, err := safefile.Glob(path, false)
		switch {
		case err != nil:
			failed(scope, fmt.Errorf("%s: %w", e, err))
			continue
		case len(matches) == 0:
			failed(scope, fmt.Errorf("%s matches no file", e))
			continue
		case len(matches) > maxFiles:
			failed(scope, fmt.Errorf("%s matches %d files, more than %d", e, len(matches), maxFiles))
			continue
		}
		for _, m := range matches {
			add(artifactIn(m, artifact))
		}
	}
	return out
}

// artifactIn is the file a path names: a directory's artifact, unless the
// path is named like a JSON file: a directory in a file's place is an
// error at that file, not a reason to look inside it.
func artifactIn(path, artifact string) string {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return path
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return filepath.Join(path, artifact)
	}
	return path
}

// unit is the scope path of a file or directory: its path relative to
// the config file's directory, "/"-separated; the absolute path when it
// lies outside.
func (d *DBT) unit(path string) string {
	if base := d.env.BaseDir; base != "" {
		if rel, err := filepath.Rel(base, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

func (d *DBT) resolve(p string) string {
	return filepath.Clean(d.env.Path(p))
}
