package unleash

import (
	"net/url"

	"github.com/bfaudit/bfaudit/model"
)

// A flag's URI, built and read here only:
//
//	unleash://<source>/projects/<project>/features/<name>   a feature flag
//
// The project and name are path-escaped. The same tail, featurePath, is the
// flag's address in the Admin API (under /api/admin) and in the UI.

// featurePath is /projects/<project>/features/<name>, path-escaped.
func featurePath(project, name string) string {
	return "/projects/" + url.PathEscape(project) + "/features/" + url.PathEscape(name)
}

func flagURI(source, project, name string) string {
	return "unleash://" + source + featurePath(project, name)
}

// flagPath is the Admin API path of one flag; DELETE on it archives the
// flag (Unleash 5 and later), which can be revived from the archive.
func flagPath(project, name string) string { return "/api/admin" + featurePath(project, name) }

// ParseUnleashFlag reads a flag's project and name back from its URI.
func ParseUnleashFlag(uri string) (project, name string, ok bool) {
	segs, ok := model.URISegments(uri, "unleash")
	if !ok || len(segs) != 4 || segs[0] != "projects" || segs[2] != "features" || segs[1] == "" || segs[3] == "" {
		return "", "", false
	}
	return segs[1], segs[3], true
}
