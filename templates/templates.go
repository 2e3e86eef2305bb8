// Package templates holds the Go templates reports are rendered from,
// embedded in the binary. A user overrides one with "@path/to/file".
package templates

import (
	"embed"
	"fmt"
	"os"
	"strings"
)

//go:embed *.tmpl
var files embed.FS

// Load returns a template's text: the embedded file name (e.g.
// "report.md.tmpl"), or a file on disk when ref starts with "@".
func Load(ref string) (string, error) {
	if path, ok := strings.CutPrefix(ref, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("template %s: %w", path, err)
		}
		return string(b), nil
	}
	b, err := files.ReadFile(ref)
	if err != nil {
		return "", fmt.Errorf("template %q: no such embedded template", ref)
	}
	return string(b), nil
}
