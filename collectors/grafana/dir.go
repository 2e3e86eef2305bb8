package grafana

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

// dirSource reads saved API answers from a directory (export_dir) that
// holds folders.json, laid out by folder so each folder stays its own
// unit:
//
//	folders.json                        GET /api/folders (every folder, nested ones included)
//	dashboards/<folder uid>/<name>.json GET /api/dashboards/uid/<uid>  ("general" for the top level)
//	alert-rules.json                    GET /api/v1/provisioning/alert-rules  (optional)
//
// A folder's dashboards are the files of its directory (.json, .yaml,
// .yml), each in any shape decodeDocs reads; a file present but empty,
// null or malformed is an error of that file, never an empty answer.
// Only regular files are read. An export without folders.json is a
// folder of dashboard files (files.go).
type dirSource struct {
	dir string
}

// maxFileBytes caps one saved answer or dashboard file.
const maxFileBytes = 64 << 20

var safeUID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,200}$`) })

func newDirSource(dir string) *dirSource { return &dirSource{dir: dir} }

// hasSavedAnswers says whether dir is laid out as saved answers (it holds
// folders.json) rather than as a folder of dashboard files.
func hasSavedAnswers(dir string) bool {
	return safefile.Check(filepath.Join(dir, "folders.json")) == nil
}

// read decodes a file into out; found is false when it does not exist.
// Errors name the file once.
func (d *dirSource) read(name string, out any) (found bool, err error) {
	return remote.ReadSaved(d.dir, name, maxFileBytes, out)
}

func (d *dirSource) folders(_ context.Context, parent string) ([]folder, error) {
	if parent != "" {
		return nil, nil
	}
	var out []folder
	found, err := d.read("folders.json", &out)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("folders.json: missing in %s", d.dir)
	}
	for i, f := range out {
		if !safeUID().MatchString(f.UID) {
			return nil, fmt.Errorf("folders.json: folder %d: uid %q is not a folder uid", i, clip(f.UID, 60))
		}
	}
	return out, nil
}

// isDashboardFile says whether a file name is one the exports hold
// dashboards in.
func isDashboardFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// files lists the dashboard files of one folder directory (sorted); none
// when it does not exist.
func (d *dirSource) files(folderUID string) ([]string, error) {
	return safefile.ListSaved(d.dir, "dashboards/"+folderUID, func(e fs.DirEntry) bool {
		return !e.IsDir() && isDashboardFile(e.Name())
	})
}

// search lists a folder's files as hits, each known by its file name
// without extension until its model says its uid. A tag search reads
// every file for its tags (one that cannot be read is its own unit's
// error later).
func (d *dirSource) search(ctx context.Context, folderUID, tag string) ([]hit, error) {
	if tag == "" {
		if !safeUID().MatchString(folderUID) {
			return nil, nil
		}
		names, err := d.files(folderUID)
		if err != nil {
			return nil, err
		}
		out := make([]hit, len(names))
		for i, n := range names {
			out[i] = hit{UID: strings.TrimSuffix(n, path.Ext(n)), FolderUID: folderUID, Type: "dash-db",
				file: "dashboards/" + folderUID + "/" + n}
		}
		return out, nil
	}
	folders, err := safefile.ListSaved(d.dir, "dashboards", func(e fs.DirEntry) bool {
		return e.IsDir() && safeUID().MatchString(e.Name())
	})
	if err != nil {
		return nil, err
	}
	var out []hit
	for _, uid := range folders {
		hits, err := d.search(ctx, uid, "")
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			ans, err := d.dashboard(ctx, h)
			if err != nil {
				continue
			}
			dec, err := decodeDocs(ans.name, ans.data)
			if err != nil {
				continue
			}
			for _, b := range dec.boards {
				if slices.Contains(b.Tags, tag) {
					h.Tags = b.Tags
					out = append(out, h)
					break
				}
			}
		}
	}
	return out, nil
}

func (d *dirSource) dashboard(_ context.Context, h hit) (answer, error) {
	if h.file == "" {
		return answer{}, fmt.Errorf("dashboard %s: no file in %s/dashboards", clip(h.UID, 60), d.dir)
	}
	b, found, err := safefile.ReadSaved(d.dir, h.file, maxFileBytes)
	if err != nil {
		return answer{}, err
	}
	if !found {
		return answer{}, fmt.Errorf("%s: missing", h.file)
	}
	return answer{name: h.file, data: b}, nil
}

func (d *dirSource) alertRules(context.Context) ([]alertRule, bool, error) {
	var out []alertRule
	found, err := d.read("alert-rules.json", &out)
	return out, found, err
}
