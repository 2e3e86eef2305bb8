package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config validate prints every problem, one a line at its key's line,
// then their count, and exits 2; a good config says ok and exits 0.
func TestConfigValidate(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bfaudit.yaml")
	os.WriteFile(bad, []byte(`sources:
  - type: records
    plans: [plan]
  - type: records
    name: more
    plans: 5
  - type: postgres
    dsn_env: PG_DSN
    schemas: newcomer_shop
report:
  fail_on: severe
concurrency: 0
`), 0o644)
	tests := []struct {
		name   string
		config string
		code   int
		want   []string // stderr lines, after "bfaudit: "
		out    string
	}{
		{"quickstart", quickstart, exitOK, nil, "ok ("},
		{"five problems", bad, exitUsage, []string{
			bad + ":3: sources[0].plans[0]: no such file or folder: " + filepath.Join(dir, "plan"),
			bad + ":6: sources[1].plans: expected a list of text values, got 5",
			bad + `:9: sources[2].schemas: expected a list of text values, got "newcomer_shop" (write [newcomer_shop] for a list of one)`,
			bad + `:11: report.fail_on: unknown severity "severe" (want critical, high, medium, low or info), or never`,
			bad + ":12: concurrency: must be 1 or more, got 0",
			"5 problems in " + bad,
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := bfaudit(t, "config", "validate", "-c", tt.config)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			if !strings.Contains(out, tt.out) {
				t.Errorf("stdout %q, want %q", out, tt.out)
			}
			var want string
			for _, l := range tt.want {
				want += "bfaudit: " + l + "\n"
			}
			if stderr != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
			}
		})
	}
}

// Every example config validates.
func TestConfigValidateExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*/bfaudit.yaml")
	for _, f := range files {
		if code, _, stderr := bfaudit(t, "config", "validate", "-c", f); code != exitOK {
			t.Errorf("%s: exit %d: %s", f, code, stderr)
		}
	}
}
