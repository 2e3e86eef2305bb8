package config

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
	"github.com/bfaudit/bfaudit/reports/github"
)

// resolveRef makes a template override ("@path") relative to the config
// file's directory, so a cron job run from any directory finds the same
// template. Embedded template names and absolute paths are left alone.
func resolveRef(ref, base string) string {
	path, ok := strings.CutPrefix(ref, "@")
	if !ok || base == "" || path == "" || filepath.IsAbs(path) {
		return ref
	}
	return "@" + filepath.Join(base, path)
}

// resolveTemplates resolves report.templates against base and parses each
// one now, so a missing or broken template is a config error, not a
// failure after the sinks acted.
func (r *Report) resolveTemplates(base string) error {
	for format, ref := range r.Templates {
		key := "report.templates." + format
		if strings.TrimSpace(ref) == "" {
			return fmt.Errorf("%s: empty; give an embedded template name or @path/to/file.tmpl", key)
		}
		ref = resolveRef(ref, base)
		if err := reports.CheckTemplate(format, ref); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		r.Templates[format] = ref
	}
	return nil
}

// checkGitHubTemplates resolves the GitHub issue templates against base and
// parses them with the sink's own functions, building (not running) a sink
// in dry-run mode, which needs no token and makes no call.
func checkGitHubTemplates(gc *github.Config, base string, owners model.Owners) error {
	gc.TitleTemplate = resolveRef(gc.TitleTemplate, base)
	gc.BodyTemplate = resolveRef(gc.BodyTemplate, base)
	probe := *gc
	probe.DryRun = true
	_, err := github.New(probe, owners, github.WithOutput(io.Discard), github.WithGetenv(func(string) string { return "" }))
	return err
}
