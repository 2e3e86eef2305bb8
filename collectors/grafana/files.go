package grafana

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/safefile"
	"github.com/bfaudit/bfaudit/model"
)

// maxFiles caps the files one export_dir walk reads.
const maxFiles = 20000

// collectFiles reads an export_dir that is a folder of dashboard files,
// the form people keep dashboards in: models exported from the UI and
// committed to git, a provisioning folder (nested directories of *.json),
// kube-prometheus or grafana-operator manifests (ConfigMaps,
// GrafanaDashboards), v2 resources. Each file (.json, .yaml, .yml) is a
// unit, its scope its path under export_dir; a directory that cannot be
// listed is the unit of what is below it. A file that holds no dashboard
// is skipped with a note. Alert rules are not read from such a folder.
func (g *Grafana) collectFiles(ctx context.Context, dir string, sink collectors.Sink) error {
	files, err := g.walkFiles(ctx, dir, sink)
	if err != nil {
		return fmt.Errorf("grafana source %s: export_dir: %w", g.env.Source, err)
	}
	seen := map[string]string{}
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		scope := fileScope(rel)
		fail := func(err error) {
			sink.AddError(scope, fmt.Errorf("grafana source %s: %s: %w", g.env.Source, rel, err))
		}
		data, found, err := safefile.ReadSaved(dir, rel, maxFileBytes)
		if err != nil {
			// ReadSaved's errors name the file as the export names it.
			sink.AddError(scope, fmt.Errorf("grafana source %s: %w", g.env.Source, err))
			continue
		}
		if !found {
			fail(errors.New("gone while it was read"))
			continue
		}
		dec, err := decodeDocs(rel, data)
		if err != nil {
			fail(err)
			continue
		}
		if err := dec.err(); err != nil {
			fail(err)
		}
		if len(dec.boards) == 0 && len(dec.errs) == 0 {
			if len(dec.elsewhere) == 0 {
				g.notes.skip(rel, dec)
			}
			g.notes.elsewhere(rel, dec)
			continue
		}
		g.notes.elsewhere(rel, dec)
		sink.AddRead(scope, "dashboards", len(dec.boards), dec.partial())
		stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
		dirTitle := folderOfFile(rel)
		for n, b := range dec.boards {
			uid := boardUID(b, stem, n, len(dec.boards))
			if !g.wantedBoard(rel, dirTitle, b) {
				continue
			}
			if first, dup := seen[uid]; dup {
				g.notes.duplicate(uid, first, rel)
				continue
			}
			seen[uid] = rel
			if art := g.boardArtifact(scope, uid, dirTitle, hit{}, b); art != nil {
				sink.AddArtifact(*art)
			}
		}
	}
	return nil
}

// walkFiles lists the dashboard files under dir (safefile.Walk: hidden
// names passed over), as slash paths relative to it. A directory that
// cannot be listed, and an entry that is not a regular file, are errors at
// their own scope; dir itself not being a directory fails the source.
func (g *Grafana) walkFiles(ctx context.Context, dir string, sink collectors.Sink) ([]string, error) {
	rel := func(path string) string {
		r, _ := filepath.Rel(dir, path)
		return filepath.ToSlash(r)
	}
	paths, err := safefile.Walk(ctx, dir, safefile.WalkOptions{
		Match: isDashboardFile,
		Max:   maxFiles,
		Fail: func(path string, err error) {
			r := rel(path)
			sink.AddError(fileScope(r), fmt.Errorf("grafana source %s: %s: %w", g.env.Source, r, err))
		},
	})
	if errors.Is(err, safefile.ErrTooMany) {
		sink.AddError("", fmt.Errorf("grafana source %s: export_dir holds more than %d dashboard files: the rest not read", g.env.Source, maxFiles))
	} else if err != nil {
		return nil, err
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = rel(p)
	}
	sort.Strings(out)
	return out, nil
}

// fileScope is a file's unit: its path under export_dir, one scope
// segment per directory.
func fileScope(rel string) string {
	if rel == "." || rel == "" {
		return ""
	}
	return model.JoinScope(strings.Split(rel, "/")...)
}

// folderOfFile is the folder a provisioning provider with
// foldersFromFilesStructure gives a file: its directory's name ("" at the
// top).
func folderOfFile(rel string) string {
	d := path.Dir(rel)
	if d == "." {
		return ""
	}
	return path.Base(d)
}

// wantedBoard applies the folders allow-list to a file's dashboard: its
// directory (path or name) or the folder its model or manifest names; a
// dashboard carrying one of the configured tags is read wherever it is.
func (g *Grafana) wantedBoard(rel, dirTitle string, b board) bool {
	if len(g.Folders) == 0 {
		return true
	}
	dir := path.Dir(rel)
	if dir == "." {
		dir = generalFolder
	}
	for _, w := range g.Folders {
		if w == dir || strings.EqualFold(w, dirTitle) || (w == generalFolder && dirTitle == "") ||
			(b.Meta.FolderUID != "" && w == b.Meta.FolderUID) || (b.Meta.FolderTitle != "" && strings.EqualFold(w, b.Meta.FolderTitle)) {
			return true
		}
	}
	for _, t := range g.Tags {
		if slices.Contains(b.Tags, t) {
			return true
		}
	}
	return false
}

// notes says what a collection skipped: files that hold no dashboard,
// dashboards whose model is kept elsewhere, uids found twice.
type notes struct {
	mu                        sync.Mutex
	skipped, away, duplicates []string
}

// maxNoteItems caps the items one note lists.
const maxNoteItems = 20

func (n *notes) skip(file string, d decoded) {
	what := ""
	if len(d.skipped) > 0 {
		what = " (" + clip(d.skipped[0], 120) + ")"
		if len(d.skipped) > 1 {
			what = " (" + clip(d.skipped[0], 120) + ", +" + strconv.Itoa(len(d.skipped)-1) + ")"
		}
	}
	n.mu.Lock()
	n.skipped = append(n.skipped, clip(file, 200)+what)
	n.mu.Unlock()
}

func (n *notes) elsewhere(file string, d decoded) {
	n.mu.Lock()
	for _, e := range d.elsewhere {
		n.away = append(n.away, joinWhere(clip(file, 200), e))
	}
	n.mu.Unlock()
}

func (n *notes) duplicate(uid, first, again string) {
	n.mu.Lock()
	n.duplicates = append(n.duplicates, fmt.Sprintf("%s (%s, again in %s)", clip(uid, 80), clip(first, 200), clip(again, 200)))
	n.mu.Unlock()
}

func (n *notes) lines() []string {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	if len(n.skipped) > 0 {
		out = append(out, listNote(fmt.Sprintf("skipped %d file(s) that hold no dashboard", len(n.skipped)), n.skipped))
	}
	if len(n.away) > 0 {
		out = append(out, listNote(fmt.Sprintf("%d dashboard(s) whose model is not in the file were not read", len(n.away)), n.away))
	}
	if len(n.duplicates) > 0 {
		out = append(out, listNote(fmt.Sprintf("%d dashboard uid(s) found twice, reported once (from the first file)", len(n.duplicates)), n.duplicates))
	}
	return out
}

func listNote(head string, items []string) string {
	shown := items
	if len(shown) > maxNoteItems {
		shown = shown[:maxNoteItems]
	}
	s := head + ": " + strings.Join(shown, "; ")
	if len(items) > len(shown) {
		s += fmt.Sprintf("; and %d more", len(items)-len(shown))
	}
	return s
}

// Notes says what the last collection skipped (collectors.Noter).
func (g *Grafana) Notes() []string { return g.notes.lines() }
