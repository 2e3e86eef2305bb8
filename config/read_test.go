package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

func writeAs(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The type comes from the extension in any case, or from the content:
// a ConfigMap key mounted as `config` used to fail with
// `Unsupported Config Type ""`, and bfaudit.YAML was refused.
func TestConfigTypeFromExtensionOrContent(t *testing.T) {
	yamlBody := "report:\n  fail_on: low\n"
	tests := []struct{ name, file, body string }{
		{"no extension, YAML", "config", yamlBody},
		{"no extension, JSON", "config", `{"report": {"fail_on": "low"}}`},
		{"upper-case YAML", "bfaudit.YAML", yamlBody},
		{"upper-case YML", "bfaudit.Yml", yamlBody},
		{"JSON", "bfaudit.JSON", "{\n\t\"report\": {\"fail_on\": \"low\"}\n}"},
		{"TOML", "bfaudit.toml", "[report]\nfail_on = \"low\"\n"},
		{"unknown extension", "bfaudit.conf", yamlBody},
		{"dotfile", ".bfaudit", yamlBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(NewViper(), writeAs(t, tt.file, tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if c.FailOn != model.SeverityLow {
				t.Errorf("fail_on = %s, want low", c.FailOn)
			}
		})
	}
}

// An empty config used to audit nothing and say "No findings" (exit 0).
func TestEmptyConfigIsAnError(t *testing.T) {
	tests := []struct{ name, file, body string }{
		{"zero bytes", "bfaudit.yaml", ""},
		{"blank lines", "bfaudit.yaml", "\n  \n\n"},
		{"only comments", "bfaudit.yaml", "# sources:\n#   - type: records\n"},
		{"document marker and comment", "config", "---\n# nothing yet\n"},
		{"null", "bfaudit.yaml", "null\n"},
		{"empty mapping", "bfaudit.yml", "{}\n"},
		{"empty JSON object", "bfaudit.json", " { } "},
		{"JSON null", "bfaudit.json", "null"},
		{"TOML comments", "bfaudit.toml", "# [report]\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeAs(t, tt.file, tt.body)
			_, err := Load(NewViper(), p)
			if err == nil {
				t.Fatal("an empty config loaded")
			}
			if !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), "no settings") {
				t.Errorf("error %q: want the file named and 'no settings'", err)
			}
			var ce *Error
			if !asError(err, &ce) {
				t.Errorf("error %T is not a config error (exit 2)", err)
			}
		})
	}
}

func asError(err error, target **Error) bool {
	return errors.As(err, target)
}

// A named pipe as the config would block the audit forever.
func TestConfigNotRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "config")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(NewViper(), fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Load blocked on a named pipe")
	}
	if _, err := Load(NewViper(), dir); err == nil || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("directory: %v", err)
	}
}

func TestWaiverLinesWithoutExtension(t *testing.T) {
	body := "waivers:\n  - rule: BF005\n    backfill: BF-1\n    reason: r\n    approver: a\n    expires: 2030-01-01\n"
	c, err := Load(NewViper(), writeAs(t, "config", body))
	if err != nil {
		t.Fatal(err)
	}
	if ws := c.RuleOptions.Waivers; len(ws) != 1 || ws[0].Source.Line != 2 {
		t.Errorf("waivers = %+v, want one on line 2", ws)
	}
}

// Durations in config go through one range-checked parser: 213504d used
// to wrap around to about 25 minutes.
func TestDurationOutOfRangeNamesKey(t *testing.T) {
	for _, body := range []string{
		"sources:\n  - {type: airflow, name: af, url: 'http://127.0.0.1:1', catchup_max_age: 213504d}\n",
		"rules:\n  params:\n    BF001: {grace: 106752d}\n",
		"github:\n  repo: o/r\n  rate_limit_wait: 213504d\n",
	} {
		p := write(t, body)
		_, err := Load(NewViper(), p)
		if err == nil {
			t.Errorf("%q loaded", body)
			continue
		}
		key := map[bool]string{true: "catchup_max_age", false: ""}[strings.Contains(body, "catchup")]
		if strings.Contains(body, "grace") {
			key = "rules.params.bf001.grace"
		}
		if strings.Contains(body, "rate_limit_wait") {
			key = "rate_limit_wait"
		}
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error %q does not name %s", err, key)
		}
	}
	c, err := Load(NewViper(), write(t, "github:\n  repo: o/r\n  rate_limit_wait: 1d\n  dry_run: true\n"))
	if err != nil || c.GitHub.RateLimitWait == nil || *c.GitHub.RateLimitWait != 24*time.Hour {
		t.Errorf("rate_limit_wait: 1d: %v", err)
	}
}
