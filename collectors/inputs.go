package collectors

import (
	"fmt"
	"path/filepath"
)

// Input is a local file or folder a collector reads: Key is its config key
// within the source entry ("plans[0]", "export_dir"), Path the path as the
// collector opens it (a glob when it holds *, ? or [). Hidden says that a
// glob's wildcards match names starting with "." too, as the collector's
// own glob does (safefile.Glob); otherwise they pass over them, as a
// shell's do.
type Input struct {
	Key    string
	Path   string
	Hidden bool
}

// InputLister is implemented by collectors that read local files, so
// `bfaudit config validate` can check that each one is there before a run.
// It is called after SetBaseDir.
type InputLister interface {
	Inputs() []Input
}

// Inputs lists a list key's paths ("plans" gives plans[0], plans[1]...),
// a relative path resolved against base as BaseDirUser collectors do.
func Inputs(base, key string, paths []string) []Input {
	var out []Input
	for i, p := range paths {
		out = append(out, Input{Key: fmt.Sprintf("%s[%d]", key, i), Path: Resolve(base, p)})
	}
	return out
}

// Resolve makes a relative path relative to base (the config file's
// folder); an absolute path, or any path when base is "", is kept.
func Resolve(base, p string) string {
	if p == "" || base == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}
