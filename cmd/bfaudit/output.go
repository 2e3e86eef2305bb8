package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
// the config's report section. At most one format may go to stdout.
func planOutputs(cfg *config.Config, formats, outputs []string) ([]output, error) {
	formats = splitList(formats)
	paths := map[string]string{}
	for f, p := range cfg.Report.Outputs {
		paths[f] = p
	}
	if len(formats) == 0 {
		formats = cfg.Report.Formats
	}
	for _, o := range outputs {
		f, p, ok := strings.Cut(o, "=")
		if !ok {
			if len(formats) != 1 {
				return nil, fmt.Errorf("--output %s: name the format (FORMAT=PATH) when writing several formats", o)
			}
			f, p = formats[0], o
		}
		if !reports.IsFormat(f) {
			return nil, fmt.Errorf("--output %s: unknown format %q (expected %s)", o, f, strings.Join(reports.Formats(), ", "))
		}
		paths[f] = p
		if !contains(formats, f) {
			formats = append(formats, f)
		}
	}
	var plan []output
	stdout := ""
	for _, f := range formats {
		if !reports.IsFormat(f) {
			return nil, fmt.Errorf("--format: unknown format %q (expected %s)", f, strings.Join(reports.Formats(), ", "))
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
		opts := reports.Options{Color: o.path == "" && isTerminal(stdout), Templates: cfg.Report.Templates}
		if o.path == "" {
			opts.Width = reports.ColumnsFrom(os.Getenv)
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
		if dir := filepath.Dir(o.path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("%s report: %w", o.format, err)
			}
		}
		file, err := os.Create(o.path)
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

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
