package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
)

// output is one format and where it goes ("" means stdout).
type output struct {
	format string
	path   string
}

// planOutputs decides the formats and files from flags, falling back to
// the config's report section. At most one format may go to stdout. A
// bare --output PATH takes the only format named with --format; with no
// --format it writes the one report its extension names (formatOf), and
// the config's formats are not written.
func planOutputs(cfg *config.Config, formats, outputs []string) ([]output, error) {
	formats = canonical(splitList(formats))
	named := len(formats) > 0
	paths := map[string]string{}
	for f, p := range cfg.Report.Outputs {
		paths[reports.Canonical(f)] = p
	}
	var inferred []string
	for _, o := range outputs {
		f, p, ok := strings.Cut(o, "=")
		switch {
		case ok:
			f = reports.Canonical(f)
		case named && len(formats) != 1:
			return nil, fmt.Errorf("--output %s: name the format (FORMAT=PATH) when writing several formats", o)
		case named:
			f, p = formats[0], o
		default:
			var err error
			if f, err = formatOf(o); err != nil {
				return nil, err
			}
			if slices.Contains(inferred, f) {
				return nil, fmt.Errorf("--output %s: a %s report goes to %s already", o, f, paths[f])
			}
			p = o
			inferred = append(inferred, f)
		}
		if !reports.IsFormat(f) {
			return nil, fmt.Errorf("--output %s: unknown format %q (expected %s)", o, f, formatList())
		}
		paths[f] = p
		if named && !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
	}
	if !named {
		formats = canonical(cfg.Report.Formats)
		if len(inferred) > 0 {
			formats = inferred
		}
		for _, o := range outputs {
			if f, _, ok := strings.Cut(o, "="); ok && !slices.Contains(formats, reports.Canonical(f)) {
				formats = append(formats, reports.Canonical(f))
			}
		}
	}
	var plan []output
	stdout := ""
	for _, f := range formats {
		if !reports.IsFormat(f) {
			return nil, fmt.Errorf("--format: unknown format %q (expected %s)", f, formatList())
		}
		p := paths[f]
		if p == "" || p == "-" {
			if stdout != "" {
				return nil, fmt.Errorf("--format: %s and %s would both go to stdout; give one a file with --output FORMAT=PATH", stdout, f)
			}
			stdout, p = f, ""
		}
		plan = append(plan, output{format: f, path: p})
	}
	return plan, nil
}

// writeReports writes the reports; the one without a file goes to stdout
// (stderr while a dry run's plan has stdout).
func writeReports(ctx context.Context, g *globals, stdout io.Writer, cfg *config.Config, plan []output, r *model.Report) error {
	for _, o := range plan {
		opts := reports.Options{Templates: cfg.Report.Templates}
		if o.path == "" {
			opts.Color, opts.Width = g.colorOn(stdout), terminalWidth(stdout)
		}
		w, err := reports.New(o.format, opts)
		if err != nil {
			return err
		}
		if o.path == "" {
			if err := w.Write(ctx, stdout, r); err != nil {
				return fmt.Errorf("%s report: %w", o.format, err)
			}
			continue
		}
		file, err := createFile(o.path)
		if err != nil {
			return fmt.Errorf("%s report: %w", o.format, err)
		}
		err = w.Write(ctx, file, r)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s report %s: %w", o.format, o.path, err)
		}
		g.log.Info("report written", "format", o.format, "path", o.path)
	}
	return nil
}

// createFile creates (or truncates) path, making its folder first: an
// output into a folder that does not exist yet (out/report.html) is
// written, not refused.
func createFile(path string) (*os.File, error) {
	if err := makeDir(path); err != nil {
		return nil, err
	}
	return os.Create(path)
}

// makeDir makes the folder path is to be written in.
func makeDir(path string) error {
	if dir := filepath.Dir(path); dir != "." {
		return os.MkdirAll(dir, 0o755)
	}
	return nil
}
