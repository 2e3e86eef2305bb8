package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The trial's config: five problems, reported in one run, each at the
// line of its own key, in file order.
func TestValidateReportsEveryProblemAtItsKey(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "records"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "bfaudit.yaml")
	body := `sources:
  - type: records
    name: plans
    plans: [plan]
    records: [records]
  - type: records
    name: numbers
    plans: 5
  - type: postgres
    name: shop
    dsn_env: PG_DSN
    schemas: newcomer_shop
report:
  fail_on: severe
concurrency: 0
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Validate(NewViper(), p)
	want := []string{
		p + ":4: sources[0].plans[0]: no such file or folder: " + filepath.Join(dir, "plan"),
		p + ":8: sources[1].plans: expected a list of text values, got 5",
		p + ":12: sources[2].schemas: expected a list of text values, got \"newcomer_shop\" (write [newcomer_shop] for a list of one)",
		p + ":14: report.fail_on: unknown severity \"severe\" (want critical, high, medium, low or info), or never",
		p + ":15: concurrency: must be 1 or more, got 0",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Fatalf("error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	if n := Count(err); n != 5 {
		t.Errorf("Count = %d, want 5", n)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Errorf("%T is not a config error", err)
	}
}

// Each of the trial's cases alone, and the other paths and types a config
// names: the problem names the file, the key's line and the key.
func TestValidateCases(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"missing plans folder", "sources:\n  - type: records\n    plans: [nosuch]\n", ":3: sources[0].plans[0]: no such file or folder: "},
		{"a number for a list of paths", "sources:\n  - type: records\n    plans: 5\n", ":3: sources[0].plans: expected a list of text values, got 5"},
		{"a number in a list of paths", "sources:\n  - type: records\n    plans: [5]\n", ":3: sources[0].plans[0]: expected text, got the number 5"},
		{"text for a list", "sources:\n  - type: postgres\n    dsn_env: PG\n    schemas: newcomer_shop\n", ":4: sources[0].schemas: expected a list of text values"},
		{"true/false for text", "sources:\n  - type: inventory\n    files: [bfaudit.yaml]\n    system: false\n", ":4: sources[0].system: expected text, got the value false"},
		{"text for a top-level list", "report:\n  formats: table\n", ":2: report.formats: expected a list of text values"},
		{"missing export_dir", "sources:\n  - type: grafana\n    export_dir: saved\n", ":3: sources[0].export_dir: no such file or folder: "},
		{"glob matching nothing", "sources:\n  - type: dbt\n    manifests: [target/*.json]\n", ":3: sources[0].manifests[0]: no such file or folder matches "},
		{"missing codeowners", "sources:\n  - type: records\n    plans: [.]\n    codeowners: CODEOWNERS\n", ":4: sources[0].codeowners: no such file or folder: "},
		{"output under a file", "sources:\n  - {type: records, plans: [.]}\nreport:\n  outputs: {json: config_test.go/out.json}\n", ":4: report.outputs.json: cannot make the folder of "},
		{"history under a file", "sources:\n  - {type: records, plans: [.]}\nhistory:\n  path: bfaudit.yaml/h.db\n", ":4: history.path: cannot make the folder of "},
		{"missing template", "report:\n  templates:\n    markdown: '@nosuch.tmpl'\n", ":3: report.templates.markdown: "},
		{"type inside a source", "sources:\n  - type: airflow\n    export_dir: .\n    page_size: many\n", ":4: sources[0].page_size: expected a whole number, got \"many\""},
		{"unknown key inside a source", "sources:\n  - type: records\n    plans: [.]\n    plan: [x]\n", ":4: sources[0].plan: unknown key; did you mean plans?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, tt.body)
			_, err := Validate(NewViper(), p)
			if err == nil {
				t.Fatal("validated")
			}
			if !strings.HasPrefix(err.Error(), p+tt.want) {
				t.Errorf("error:\n%v\nwant it to start with:\n%s", err, p+tt.want)
			}
		})
	}
}

// A glob matches in validate as in the run: a rules/*.yaml that finds only
// the linter's .yamllint.yaml finds nothing, since the collector would read
// nothing; a notebooks glob matches a checkpoint folder, since the
// notebooks collector reads checkpoint copies.
func TestValidateGlobsAsTheRunDoes(t *testing.T) {
	p := write(t, "sources:\n  - type: prometheus\n    rule_files: [rules/*.yaml]\n  - type: notebooks\n    paths: [nb/*/*.ipynb]\n")
	dir := filepath.Dir(p)
	for _, f := range []string{"rules/.yamllint.yaml", "nb/.ipynb_checkpoints/fix-checkpoint.ipynb"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Validate(NewViper(), p)
	want := p + ":3: sources[0].rule_files[0]: no such file or folder matches " + filepath.Join(dir, "rules/*.yaml")
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

// Load, unlike Validate, does not look at the files a source reads: the
// audit runs from a saved estate where they are not, and a folder missing
// at run time is a failed source, not a refusal to run.
func TestLoadLeavesPathsToTheRun(t *testing.T) {
	p := write(t, "sources:\n  - type: records\n    plans: [nosuch]\n")
	if _, err := Load(NewViper(), p); err != nil {
		t.Errorf("Load: %v", err)
	}
}

// Every example config in the repository validates.
func TestValidateExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/*/bfaudit.yaml")
	if len(files) == 0 {
		t.Fatal("no example configs")
	}
	for _, f := range files {
		if _, err := Validate(NewViper(), f); err != nil {
			t.Errorf("%s:\n%v", f, err)
		}
	}
}

// Garbage is a config error naming the file, never a panic.
func TestValidateGarbage(t *testing.T) {
	tests := map[string]string{
		"empty":             "",
		"a list at the top": "- a\n- b\n",
		"a scalar":          "hello\n",
		"binary":            "\x00\x01\xff\xfe\x89PNG\r\n\x1a\n",
		"sources a mapping": "sources: {type: records}\n",
		"sources a scalar":  "sources: records\n",
		"a source a list":   "sources:\n  - [records]\n",
		"type a list":       "sources:\n  - type: [records]\n",
		"deep nesting":      strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
		"alias bomb":        "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nsources: [*c]\n",
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			p := write(t, body)
			_, err := Validate(NewViper(), p)
			if err == nil {
				t.Fatal("validated")
			}
			var ce *Error
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), p) {
				t.Errorf("error %T %q is not a config error naming the file", err, err)
			}
		})
	}
}
