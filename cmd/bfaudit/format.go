package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bfaudit/bfaudit/reports"
)

// canonical gives each format its own name: "text" and "table" are one
// writer, whichever a user types.
func canonical(formats []string) []string {
	out := make([]string, 0, len(formats))
	for _, f := range formats {
		out = append(out, reports.Canonical(f))
	}
	return out
}

// formatList names the report formats for help and errors.
func formatList() string {
	return strings.Join(reports.Formats(), ", ") + " (text is table)"
}

// extensions map an --output file's extension to the report it gets when
// no --format names one; longer extensions first.
var extensions = []struct{ ext, format string }{
	{".sarif.json", "sarif"},
	{".sarif", "sarif"},
	{".json", "json"},
	{".html", "html"},
	{".htm", "html"},
	{".md", "markdown"},
	{".markdown", "markdown"},
	{".txt", "table"},
}

// formatOf is the report format path's extension names.
func formatOf(path string) (string, error) {
	lower := strings.ToLower(path)
	for _, e := range extensions {
		if strings.HasSuffix(lower, e.ext) {
			return e.format, nil
		}
	}
	return "", fmt.Errorf("--output %s: cannot tell the format from %q; name it with --format or --output FORMAT=PATH "+
		"(known extensions: .json, .html, .htm, .md, .sarif, .sarif.json, .txt)", path, filepath.Ext(path))
}
