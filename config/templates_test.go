package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/reports/github"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Relative template paths used to resolve against the working directory:
// a cron job started elsewhere did not find them.
func TestTemplatesResolveNextToConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tmpl", "report.md.tmpl"), "# {{ len .Findings }} findings\n")
	writeFile(t, filepath.Join(dir, "tmpl", "report.html.tmpl"), "<p>{{ len .Findings }}</p>\n")
	writeFile(t, filepath.Join(dir, "tmpl", "title.tmpl"), "{{ .ID }}\n")
	p := filepath.Join(dir, "bfaudit.yaml")
	writeFile(t, p, "report:\n  templates:\n    markdown: '@tmpl/report.md.tmpl'\n    html: '@tmpl/report.html.tmpl'\n"+
		"github:\n  repo: o/r\n  title_template: '@tmpl/title.tmpl'\n  dry_run: true\n")
	t.Chdir(t.TempDir())
	c, err := Load(NewViper(), p)
	if err != nil {
		t.Fatal(err)
	}
	for format, want := range map[string]string{"markdown": "report.md.tmpl", "html": "report.html.tmpl"} {
		if got := c.Report.Templates[format]; got != "@"+filepath.Join(dir, "tmpl", want) {
			t.Errorf("report.templates.%s = %q, want it next to the config", format, got)
		}
	}
	if got := c.GitHub.TitleTemplate; got != "@"+filepath.Join(dir, "tmpl", "title.tmpl") {
		t.Errorf("github.title_template = %q", got)
	}
	if c.GitHub.BodyTemplate != github.DefaultBodyTemplate {
		t.Errorf("github.body_template = %q, want the embedded default", c.GitHub.BodyTemplate)
	}
}

// A bad template used to fail only when the report was written, after
// GitHub and Slack had acted; now the config does not load (exit 2).
func TestBadTemplateIsConfigError(t *testing.T) {
	tests := []struct {
		name, files, config, want string
	}{
		{"markdown parse error", "{{ .Findings ", "report:\n  templates:\n    markdown: '@t.tmpl'\n", "report.templates.markdown: template @"},
		{"html unknown function", "{{ nosuch .Findings }}", "report:\n  templates:\n    html: '@t.tmpl'\n", "report.templates.html"},
		{"missing file", "", "report:\n  templates:\n    markdown: '@missing.tmpl'\n", "missing.tmpl: file not found"},
		{"unknown embedded", "", "report:\n  templates:\n    markdown: nosuch.tmpl\n", "no such embedded template"},
		{"not a template format", "", "report:\n  templates:\n    sarif: '@t.tmpl'\n", "report.templates.sarif"},
		{"github body parse error", "{{ if }}", "github:\n  repo: o/r\n  body_template: '@t.tmpl'\n", "github.body_template"},
		{"github title unknown field function", "{{ nosuch }}", "github:\n  repo: o/r\n  title_template: '@t.tmpl'\n", "github.title_template"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.files != "" {
				writeFile(t, filepath.Join(dir, "t.tmpl"), tt.files)
			}
			p := filepath.Join(dir, "bfaudit.yaml")
			writeFile(t, p, tt.config)
			_, err := Load(NewViper(), p)
			if err == nil {
				t.Fatal("a bad template loaded")
			}
			if !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q: want the file and %q", err, tt.want)
			}
		})
	}
}
