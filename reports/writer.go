// Package reports renders an audit's model.Report: terminal table, JSON,
// Markdown, HTML (from templates/) and SARIF. Sinks that talk to the world
// live in subpackages (github, slack) with the history store.
package reports

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/bfaudit/bfaudit/model"
)

// Writer renders a report to w.
type Writer interface {
	Write(ctx context.Context, w io.Writer, r *model.Report) error
}

// Options tune the writers.
type Options struct {
	// Color enables ANSI colour in the table (only on a terminal).
	Color bool
	// Templates overrides a format's template ("markdown", "html") with
	// "@path" or another embedded template name.
	Templates map[string]string
}

// writers is the explicit map from format name to writer.
var writers = map[string]func(Options) Writer{
	"table": func(o Options) Writer { return &Table{Color: o.Color} },
	"json":  func(Options) Writer { return JSON{} },
	"markdown": func(o Options) Writer {
		return &Template{Name: pick(o.Templates["markdown"], "report.md.tmpl"), HTML: false}
	},
	"html": func(o Options) Writer {
		return &Template{Name: pick(o.Templates["html"], "report.html.tmpl"), HTML: true}
	},
	"sarif": func(Options) Writer { return SARIF{} },
}

// New returns the writer for a format.
func New(format string, o Options) (Writer, error) {
	f, ok := writers[format]
	if !ok {
		return nil, fmt.Errorf("unknown report format %q (expected %v)", format, Formats())
	}
	return f(o), nil
}

// Formats lists the formats, sorted.
func Formats() []string {
	var out []string
	for f := range writers {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func pick(v, def string) string {
	if v != "" {
		return v
	}
	return def
}
