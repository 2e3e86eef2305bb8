// Package templates holds the Go templates reports are rendered from,
// embedded in the binary. A user overrides one with "@path/to/file".
package templates

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/bfaudit/bfaudit/internal/safefile"
)

// MaxSize caps a template file read from disk.
const MaxSize = 4 << 20

//go:embed *.tmpl
var files embed.FS

// Load returns a template's text: the embedded file name (e.g.
// "report.md.tmpl"), or a file on disk when ref starts with "@" (a
// regular file; a relative path is relative to the working directory, so
// config resolves the ones it holds against the config file's directory).
func Load(ref string) (string, error) {
	if path, ok := strings.CutPrefix(ref, "@"); ok {
		b, err := safefile.ReadLimit(path, MaxSize)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("template %s: file not found", path)
		case err != nil:
			// safefile's errors name the path already.
			return "", fmt.Errorf("template: %w", err)
		}
		return string(b), nil
	}
	b, err := files.ReadFile(ref)
	if err != nil {
		return "", fmt.Errorf("template %q: no such embedded template", ref)
	}
	return string(b), nil
}
