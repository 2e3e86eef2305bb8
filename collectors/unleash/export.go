package unleash

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

// dirAPI reads Admin API answers saved as files, so an estate can be
// audited without a live Unleash:
//
//	projects.json                            GET /api/admin/projects
//	environments.json                        GET /api/admin/environments (optional)
//	projects/<project>/features.json         GET /api/admin/search/features?project=IS:<project>,
//	                                         every page in one {"features": [...]}
//	projects/<project>/archived.json         the same with archived=IS:true (optional)
//	projects/<project>/features/<name>.json  GET /api/admin/projects/<project>/features/<name>
//	                                         (optional: the flag's strategies)
//
// A folder under projects/ that projects.json does not name is read too,
// as the search across projects finds a project the listing lacks.
//
// Files are read only when they are regular files, under a size cap; a
// file that is present but empty, null or malformed is an error, never an
// empty answer. A project without features.json did not answer.
type dirAPI struct{ dir string }

// maxFileBytes caps one saved answer, as apiclient caps one answer.
const maxFileBytes = 64 << 20

// read decodes the file name (slash-separated, relative to the export)
// into out; found is false when it does not exist.
func (d *dirAPI) read(name string, out any) (found bool, err error) {
	return remote.ReadSaved(d.dir, name, maxFileBytes, out)
}

// safeName keeps an id from the export's own files out of a path.
func safeName(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`) && !strings.ContainsRune(id, 0)
}

func (d *dirAPI) projects(context.Context) ([]project, error) {
	var out projectList
	found, err := d.read("projects.json", &out)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("projects.json: missing in %s", d.dir)
	case out.Projects == nil:
		return nil, errors.New("projects.json: no projects list")
	}
	return out.Projects, nil
}

func (d *dirAPI) environments(context.Context) ([]environment, error) {
	var out environmentList
	found, err := d.read("environments.json", &out)
	if err != nil || !found {
		return nil, err
	}
	if out.Environments == nil {
		return nil, errors.New("environments.json: no environments list")
	}
	return out.Environments, nil
}

func (d *dirAPI) flags(_ context.Context, projectID string, archived bool) ([]flag, error) {
	if !safeName(projectID) {
		return nil, fmt.Errorf("project %q: not a name a file can have", clip(projectID, 60))
	}
	name := path.Join("projects", projectID, "features.json")
	if archived {
		name = path.Join("projects", projectID, "archived.json")
	}
	var page searchPage
	found, err := d.read(name, &page)
	switch {
	case err != nil:
		return nil, err
	case !found && archived:
		return nil, nil
	case !found:
		return nil, fmt.Errorf("%s: missing in %s", name, d.dir)
	case page.Features == nil:
		return nil, fmt.Errorf("%s: no features list", name)
	}
	seen := map[string]bool{}
	out := page.Features[:0]
	for _, f := range page.Features {
		if f.Name != "" && seen[f.Name] {
			return nil, fmt.Errorf("%s: flag %s listed twice", name, clip(f.Name, 100))
		}
		seen[f.Name] = true
		out = append(out, f)
	}
	return out, nil
}

func (d *dirAPI) flag(_ context.Context, projectID, name string) (*flag, error) {
	if !safeName(projectID) || !safeName(name) {
		return nil, nil
	}
	file := path.Join("projects", projectID, "features", name+".json")
	var out flag
	found, err := d.read(file, &out)
	if err != nil || !found {
		return nil, err
	}
	if out.Name != name {
		return nil, fmt.Errorf("%s: not the flag %s", file, clip(name, 100))
	}
	return &out, nil
}

// hidden lists the folders under projects/ that projects.json does not
// name: an export saved from the open-source edition, whose listing names
// only default, keeps the other projects' answers there.
func (d *dirAPI) hidden(_ context.Context, listed []string) ([]string, error) {
	return safefile.ListSaved(d.dir, "projects", func(e fs.DirEntry) bool {
		return e.IsDir() && safeName(e.Name()) && !slices.Contains(listed, e.Name())
	})
}

// exists: a project of an export is there when its features.json is;
// reading it says so.
func (d *dirAPI) exists(context.Context, string) error { return nil }

// tagger: an export keeps no event log.
func (d *dirAPI) tagger(context.Context, string, string, string) (string, error) { return "", nil }
