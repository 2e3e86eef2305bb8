package grafana

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

// dirSource reads saved API answers from a directory (export_dir), laid
// out by folder so each folder stays its own unit:
//
//	folders.json                        GET /api/folders (every folder, nested ones included)
//	dashboards/<folder uid>/<uid>.json  GET /api/dashboards/uid/<uid>  ("general" for the top level)
//	alert-rules.json                    GET /api/v1/provisioning/alert-rules  (optional)
//
// A folder's dashboards are the files of its directory; a file that is
// present but empty, null or malformed is an error of that dashboard,
// never an empty answer. Files are read only when they are regular files.
type dirSource struct {
	dir string

	mu    sync.Mutex
	paths map[string]string // dashboard uid -> file
}

// maxFileBytes caps one saved answer.
const maxFileBytes = 64 << 20

var safeUID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,200}$`)

func newDirSource(dir string) *dirSource { return &dirSource{dir: dir, paths: map[string]string{}} }

// read decodes a file into out; found is false when it does not exist.
func (d *dirSource) read(name string, out any) (found bool, err error) {
	b, found, err := safefile.ReadSaved(d.dir, name, maxFileBytes)
	if !found || err != nil {
		return found, err
	}
	if err := remote.Unmarshal(b, out); err != nil {
		return true, fmt.Errorf("%s: %w", name, err)
	}
	return true, nil
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
		if !safeUID.MatchString(f.UID) {
			return nil, fmt.Errorf("folders.json: folder %d: uid %q is not a folder uid", i, clip(f.UID, 60))
		}
	}
	return out, nil
}

// files lists the dashboard files of one folder directory (sorted); none
// when it does not exist.
func (d *dirSource) files(folderUID string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(d.dir, "dashboards", folderUID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dashboards/%s: %w", folderUID, unwrapPath(err))
	}
	var out []string
	for _, e := range entries {
		uid, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && safeUID.MatchString(uid) {
			out = append(out, uid)
		}
	}
	sort.Strings(out)
	return out, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (d *dirSource) search(ctx context.Context, folderUID, tag string) ([]hit, error) {
	if tag == "" {
		if !safeUID.MatchString(folderUID) {
			return nil, nil
		}
		uids, err := d.files(folderUID)
		if err != nil {
			return nil, err
		}
		out := make([]hit, len(uids))
		d.mu.Lock()
		for i, uid := range uids {
			d.paths[uid] = "dashboards/" + folderUID + "/" + uid + ".json"
			out[i] = hit{UID: uid, FolderUID: folderUID, Type: "dash-db"}
		}
		d.mu.Unlock()
		return out, nil
	}
	// A tag: every folder directory, each dashboard read for its tags
	// (a dashboard that cannot be read is its own unit's error later).
	dirs, err := os.ReadDir(filepath.Join(d.dir, "dashboards"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dashboards: %w", unwrapPath(err))
	}
	var out []hit
	for _, dir := range dirs {
		if !dir.IsDir() || !safeUID.MatchString(dir.Name()) {
			continue
		}
		hits, err := d.search(ctx, dir.Name(), "")
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			full, err := d.dashboard(ctx, h.UID)
			if err != nil {
				continue
			}
			dj, err := decodeDashboard(full.Dashboard)
			if err != nil {
				continue
			}
			for _, t := range dj.Tags {
				if t == tag {
					h.Tags = dj.Tags
					out = append(out, h)
					break
				}
			}
		}
	}
	return out, nil
}

func (d *dirSource) dashboard(_ context.Context, uid string) (dashboardFull, error) {
	d.mu.Lock()
	name, ok := d.paths[uid]
	d.mu.Unlock()
	var full dashboardFull
	if !ok {
		return full, fmt.Errorf("dashboard %s: no file in %s/dashboards", clip(uid, 60), d.dir)
	}
	found, err := d.read(name, &full)
	if err != nil {
		return full, err
	}
	if !found {
		return full, fmt.Errorf("%s: missing", name)
	}
	return full, nil
}

func (d *dirSource) alertRules(context.Context) ([]alertRule, bool, error) {
	var out []alertRule
	found, err := d.read("alert-rules.json", &out)
	return out, found, err
}
