package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	_ "github.com/bfaudit/bfaudit/collectors/all"
	"github.com/bfaudit/bfaudit/model"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bfaudit.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadQuickstart(t *testing.T) {
	c, err := Load(NewViper(), "../examples/quickstart/bfaudit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Instances) < 2 || c.FailOn != model.SeverityHigh {
		t.Errorf("instances=%d failOn=%s", len(c.Instances), c.FailOn)
	}
	// E-mail keys keep their dots (viper's default delimiter would split them).
	if ct, ok := c.Owners.Lookup("dana@example.com"); !ok || ct.GitHub != "dana-ledger" {
		t.Errorf("owner lookup = %+v, %v", ct, ok)
	}
}

func TestLoadErrorsNameFileAndKey(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"yaml syntax", "sources: [\n", "bfaudit.yaml:1: did not find expected node content"},
		{"yaml unclosed list", "rules:\n  disabled: [BF001, BF002\nsources: []\n", "bfaudit.yaml:2: did not find expected ',' or ']'"},
		{"unknown collector", "sources:\n  - type: nosuch\n", "bfaudit.yaml:2: sources[0].type: unknown collector \"nosuch\""},
		{"missing type", "sources:\n  - name: x\n", "bfaudit.yaml:2: sources[0]: type: missing"},
		{"collector key typo", "sources:\n  - type: inventory\n    name: inv\n    file: [a]\n", "bfaudit.yaml:4: sources[0].file: unknown key; did you mean files?"},
		{"duplicate name", "sources:\n  - {type: inventory, files: [a]}\n  - {type: inventory, files: [b]}\n", "is used by another source"},
		{"fail_on", "report:\n  fail_on: severe\n", "report.fail_on: unknown severity \"severe\""},
		{"format", "report:\n  formats: [pdf]\n", "bfaudit.yaml:2: report.formats[0]: unknown format \"pdf\""},
		{"severity override", "rules:\n  severity:\n    BF002: huge\n", "rules.severity.bf002"},
		{"unknown rule", "rules:\n  disabled: [BF999]\n", "unknown rule \"BF999\""},
		{"param type", "rules:\n  params:\n    BF001: {grace: soon}\n", "rules.params.bf001.grace: expected a duration"},
		{"unknown param", "rules:\n  params:\n    BF001: {days: 3}\n", "unknown parameter"},
		{"pattern", "correlation:\n  name_patterns: ['bf-\\d+']\n", "bfaudit.yaml:2: correlation.name_patterns[0]: "},
		{"owner", "owners:\n  a@b.c: {github: ''}\n", "owners.a@b.c: no contact (set github, email or both)"},
		{"owner with nothing under it", "owners:\n  a@b.c: {github: a}\n  team-x:\n", "owners.team-x: no contact (set github, email or both)"},
		{"owner with an empty mapping", "owners:\n  team-x: {}\n", "owners.team-x: no contact (set github, email or both)"},
		{"owner with blanks", "owners:\n  team-x: {email: ' '}\n", "owners.team-x: no contact (set github, email or both)"},
		{"unknown section", "reprot:\n  fail_on: high\n", "reprot: unknown key; did you mean report?"},
		{"owner key typo", "owners:\n  a@b.c: {slack: x}\n", "slack"},
		{"concurrency", "concurrency: 0\n", "concurrency: must be 1 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, tt.body)
			_, err := Load(NewViper(), p)
			if err == nil {
				t.Fatal("want an error")
			}
			if !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tt.want)) {
				t.Errorf("error %q: want it to start with the file and contain %q", err, tt.want)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := Load(NewViper(), "/nonexistent/bfaudit.yaml")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/bfaudit.yaml") {
		t.Errorf("err = %v", err)
	}
}

func TestEnvOverridesFile(t *testing.T) {
	t.Setenv("BFAUDIT_REPORT_FAIL_ON", "low")
	c, err := Load(NewViper(), write(t, "report:\n  fail_on: critical\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.FailOn != model.SeverityLow {
		t.Errorf("fail_on = %s, want low from BFAUDIT_REPORT_FAIL_ON", c.FailOn)
	}
}

func TestRelativePathsResolveAgainstConfigDir(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "plans"), 0o755)
	os.WriteFile(filepath.Join(dir, "plans", "a.yaml"), []byte("id: BF-1\n"), 0o644)
	p := filepath.Join(dir, "c.yaml")
	os.WriteFile(p, []byte("sources:\n  - {type: records, plans: [plans]}\n"), 0o644)
	c, err := Load(NewViper(), p)
	if err != nil {
		t.Fatal(err)
	}
	// Run from another directory: the plan is still found next to the config.
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c.Instances[0].Collector, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.Backfills) != 1 || sink.Backfills[0].Source.Path != "plans/a.yaml" {
		t.Errorf("backfills = %+v", sink.Backfills)
	}
}

// clockCollector keeps the Env the config hands it.
type clockCollector struct{ env collectors.Env }

func (c *clockCollector) Init(env collectors.Env) error                              { c.env = env; return nil }
func (c *clockCollector) Units(context.Context) ([]string, error)                    { return []string{""}, nil }
func (c *clockCollector) CollectUnit(context.Context, string, collectors.Sink) error { return nil }

// The audit's clock (--now, set on the loaded config) reaches every
// source through its Env, as do its name and the config's folder.
func TestSourcesReadTheAuditClock(t *testing.T) {
	collectors.Register("clock-test", func() *clockCollector { return &clockCollector{} }, "")
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	os.WriteFile(p, []byte("sources:\n  - {type: clock-test, name: wh}\n"), 0o644)
	c, err := Load(NewViper(), p)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return at }
	env := c.Instances[0].Collector.(*clockCollector).env
	if !env.Now().Equal(at) || env.Source != "wh" || env.BaseDir != dir || env.Selector == nil {
		t.Errorf("env: now %v, source %q, base %q; want %v, wh, %s", env.Now(), env.Source, env.BaseDir, at, dir)
	}
	if got := env.Place("plans[0]"); !strings.Contains(got, "c.yaml:2") {
		t.Errorf("Place = %q, want the entry's line in c.yaml", got)
	}
}

func TestHistoryPathNextToConfig(t *testing.T) {
	p := write(t, "history: {}\n")
	c, err := Load(NewViper(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(p), ".bfaudit", "history.db"); c.History.Path != want {
		t.Errorf("history path = %q, want %q", c.History.Path, want)
	}
}
