// Package reports renders an audit's model.Report: terminal table, JSON,
// Markdown, HTML (from templates/) and SARIF. Sinks that talk to the world
// live in subpackages (github, slack) with the history store.
package reports

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"golang.org/x/term"
)

// Writer renders a report to w.
type Writer interface {
	Write(ctx context.Context, w io.Writer, r *model.Report) error
}

// Options tune the writers.
type Options struct {
	// Color enables ANSI colour in the table (only on a terminal).
	Color bool
	// Width is the terminal's width for the table (Table.Width); 0 for no
	// limit. ColumnsFrom reads it from $COLUMNS.
	Width int
	// Templates overrides a format's template ("markdown", "html") with
	// "@path" or another embedded template name.
	Templates map[string]string
}

// writers is the one list of report formats, in the order they are
// offered (the default first): the config, the flags and the help read it.
var writers = []struct {
	name string
	new  func(Options) Writer
}{
	{"table", func(o Options) Writer { return &Table{Color: o.Color, Width: o.Width} }},
	{"json", func(Options) Writer { return JSON{} }},
	{"markdown", func(o Options) Writer {
		return &Template{Name: pick(o.Templates["markdown"], "report.md.tmpl"), HTML: false}
	}},
	{"html", func(o Options) Writer {
		return &Template{Name: pick(o.Templates["html"], "report.html.tmpl"), HTML: true}
	}},
	{"sarif", func(Options) Writer { return SARIF{} }},
}

// aliases are other names of a format: "text" is the terminal table,
// the name plan check used first.
var aliases = map[string]string{"text": "table"}

// Canonical returns a format's own name for an alias ("text" is "table"),
// and any other name unchanged.
func Canonical(format string) string {
	if c, ok := aliases[format]; ok {
		return c
	}
	return format
}

// New returns the writer for a format or one of its aliases.
func New(format string, o Options) (Writer, error) {
	format = Canonical(format)
	for _, w := range writers {
		if w.name == format {
			return w.new(o), nil
		}
	}
	return nil, fmt.Errorf("unknown report format %q (expected %s)", format, strings.Join(Formats(), ", "))
}

// Formats lists the report formats, the default first.
func Formats() []string {
	out := make([]string, len(writers))
	for i, w := range writers {
		out[i] = w.name
	}
	return out
}

// IsFormat reports whether bfaudit writes format (or an alias of it).
func IsFormat(format string) bool {
	return slices.Contains(Formats(), Canonical(format))
}

// ColumnsFrom reads the terminal width from $COLUMNS, as ls and git do:
// 0 (no limit) when it is unset or not a number from 20 to 10000.
func ColumnsFrom(getenv func(string) string) int {
	n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS")))
	if err != nil || n < 20 || n > 10000 {
		return 0
	}
	return n
}

// WidthFor is the width to give the table written to w: $COLUMNS when it
// is set (ColumnsFrom), else the terminal's width when w is a terminal,
// else 0, no limit (a file, a pipe). Shells set COLUMNS without exporting
// it, so a terminal is asked for its size.
func WidthFor(w io.Writer, getenv func(string) string) int {
	if n := ColumnsFrom(getenv); n > 0 {
		return n
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	if n, _, err := term.GetSize(int(f.Fd())); err == nil && n >= 20 {
		return n
	}
	return 0
}

func pick(v, def string) string {
	if v != "" {
		return v
	}
	return def
}
