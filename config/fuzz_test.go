package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/internal/redact"
)

// FuzzLoad: loading any bytes as a config file (YAML, JSON, TOML or
// without an extension) never panics, and an error is a config error that
// names the file.
func FuzzLoad(f *testing.F) {
	seeds := []string{
		"sources:\n  - {type: records, plans: [plans]}\nreport:\n  fail_on: low\n",
		"sources:\n  - type: inventory\n    files: [inv.yaml]\n",
		"rules:\n  params:\n    BF001: {grace: 213504d}\n  custom:\n    - {id: A1, title: t, severity: low, remediation: r, applies_to: artifact, expr: 'artifact.kind == \"table\"'}\n",
		"waivers:\n  - {rule: BF005, artifact: 'bq://*', reason: r, approver: a, expires: 2030-01-01}\n",
		"owners:\n  a@b.c: {github: a}\nhistory: {}\n",
		"report:\n  templates:\n    markdown: '@missing.tmpl'\n",
		"github:\n  repo: o/r\n  token: abcdefgh\n  rate_limit_wait: 1d\n",
		`{"report": {"formats": ["json"]}}`,
		"[report]\nfail_on = \"low\"\n",
		"a: &x {b: 1}\nc: *x\n",
		"", "# only a comment\n", "null", "{}", "- 1\n- 2\n", "\t", ":", "concurrency: 1e400\n",
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	names := []string{"bfaudit.yaml", "config", "bfaudit.JSON", "bfaudit.toml"}
	dir := f.TempDir()
	f.Cleanup(redact.Reset)
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		p := filepath.Join(dir, names[int(kind)%len(names)])
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		_, err := Load(NewViper(), p)
		if err == nil {
			return
		}
		var ce *Error
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), p) {
			t.Fatalf("error %T %q is not a config error naming the file", err, err)
		}
	})
}
