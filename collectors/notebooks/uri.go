package notebooks

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// A notebook's URI, built and read here only:
//
//	notebooks:///<path below its root>   a notebook, each path segment path-escaped
//
// It is the same whether the notebook was read from files or through a
// Jupyter server and whatever the source is called, so its findings
// (their fingerprints) follow the notebook, not the way it was read: the
// authority is empty, no source name is part of it. Older estates wrote
// notebooks://<source>/<path>; their source is dropped when read.

func uri(rel string) string {
	return "notebooks:///" + model.EscapePath(strings.Trim(rel, "/"))
}

// parseURI reads a notebook's path back from its URI; ok is false for
// one that names a directory (ends with '/').
func parseURI(uri string) (path string, ok bool) {
	segs, ok := model.URISegments(uri, "notebooks")
	if !ok || len(segs) == 0 || segs[len(segs)-1] == "" {
		return "", false
	}
	return strings.Join(segs, "/"), true
}
