package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/model"
)

var update = flag.Bool("update", false, "rewrite golden files")

const quickstart = "../../examples/quickstart/bfaudit.yaml"

// bfaudit runs the command line in-process.
func bfaudit(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/bfaudit -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output; if the change is intended run: go test ./cmd/bfaudit -update\n--- got ---\n%s", path, got)
	}
}

func decodeReport(t *testing.T, s string) model.Report {
	t.Helper()
	var r model.Report
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, s)
	}
	return r
}

func TestQuickstartGoldenJSON(t *testing.T) {
	code, out, stderr := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-f", "json")
	if code != exitFindings {
		t.Errorf("exit %d, want %d (findings at or above high); stderr: %s", code, exitFindings, stderr)
	}
	// The one JSON golden is the bench's: the command writes what the
	// pipeline under it writes, byte for byte.
	const jsonGolden = "../../bench/testdata/golden/quickstart.json"
	if want, err := os.ReadFile(jsonGolden); err != nil {
		t.Fatal(err)
	} else if out != string(want) {
		t.Errorf("the JSON report differs from %s; if the change is intended run: go test ./bench -run TestGolden -update\n--- got ---\n%s", jsonGolden, out)
	}
	r := decodeReport(t, out)
	byID := map[string]model.BackfillReport{}
	for _, b := range r.Backfills {
		byID[b.Backfill.ID] = b
	}
	// The outage replay was cleaned up by the book: no findings, all five steps.
	if b := byID["BF-2001"]; b.Findings != 0 || !b.Lifecycle.Done {
		t.Errorf("BF-2001 = %d findings, lifecycle %+v; want 0 and done", b.Findings, b.Lifecycle)
	}
	want := map[string][]string{
		"BF-1234": {"BF002", "BF003", "BF005", "BF006", "BF007", "BF008", "BF009"},
		"BF-3100": {"BF001", "BF008", "BF015"},
		"":        {"BF106"}, // daily_revenue: catch-up on, start date 2024
		"BF-4242": {"BF011"},
		// AWS, from saved answers of two accounts: the replay role's
		// expired grant, the runner's key, the tmp/ folders and Athena
		// scratch tables, the queues, the one-off schedules.
		"BF-4400": {"BF001", "BF003", "BF004", "BF005", "BF006"},
	}
	for id, rulesWanted := range want {
		for _, rule := range rulesWanted {
			if !hasFinding(r, id, rule) {
				t.Errorf("%s: no %s finding", id, rule)
			}
		}
	}
	for _, f := range r.Findings {
		if f.BackfillID == "BF-2001" {
			t.Errorf("BF-2001 must be clean, got %s: %s", f.RuleID, f.Message)
		}
		if f.Fingerprint == "" || f.Fingerprint != model.Fingerprint(f.RuleID, model.ParseID(f.BackfillID), f.ArtifactURI) {
			t.Errorf("%s: fingerprint %q is not the stable hash", f.RuleID, f.Fingerprint)
		}
	}
}

func hasFinding(r model.Report, backfill, rule string) bool {
	for _, f := range r.Findings {
		if f.BackfillID == backfill && f.RuleID == rule {
			return true
		}
	}
	return false
}

// collect --out then audit --from gives the same findings without touching
// any system.
func TestCollectThenAuditFrom(t *testing.T) {
	estate := filepath.Join(t.TempDir(), "estate.json")
	code, out, stderr := bfaudit(t, "collect", "-c", quickstart, "--now", "2026-11-30", "--out", estate)
	if code != exitOK {
		t.Fatalf("collect exit %d: %s %s", code, out, stderr)
	}
	// collect says what each source read, not only what it kept: the dbt
	// source keeps no artifact, yet it read the manifest's nodes and edges.
	for _, want := range []string{"  plans (records): ok; read 4 plans, ", "  dashboards (grafana): ok; read ", " dashboards", " (dbt): ok; read ", " edges"} {
		if !strings.Contains(out, want) {
			t.Errorf("collect's output lacks %q:\n%s", want, out)
		}
	}
	_, direct, _ := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-f", "json")
	code, fromFile, stderr := bfaudit(t, "audit", "--from", estate, "-c", quickstart, "--now", "2026-11-30", "-f", "json")
	if code != exitFindings {
		t.Errorf("audit --from exit %d: %s", code, stderr)
	}
	if direct != fromFile {
		t.Errorf("audit --from differs from a direct audit")
	}
	// Without a config, --from uses the defaults and still finds the same things.
	code, _, stderr = bfaudit(t, "audit", "--from", estate, "--now", "2026-11-30", "-f", "json")
	if code != exitFindings {
		t.Errorf("audit --from without config: exit %d: %s", code, stderr)
	}
}

func TestNowMakesReportsReproducible(t *testing.T) {
	_, a, _ := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30T00:00:00Z", "-f", "json")
	_, b, _ := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-f", "json")
	if a != b {
		t.Error("same --now gave different reports")
	}
	// Before BF-1234 completed, its grace periods have not started: fewer findings.
	_, early, _ := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-09-21", "-f", "json")
	if decodeReport(t, early).Summary.Findings >= decodeReport(t, a).Summary.Findings {
		t.Error("an earlier --now should give fewer findings")
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	failing := filepath.Join(dir, "failing.yaml")
	os.WriteFile(failing, []byte("sources:\n  - {type: records, plans: [does-not-exist]}\n"), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("report:\n  fail_on: severe\n"), 0o644)
	// The quickstart's plans and records alone: before BF-1234 completed
	// nothing is critical (its notebook's live key is, whatever the date).
	plansOnly := filepath.Join(dir, "plans.yaml")
	os.WriteFile(plansOnly, []byte("sources:\n  - {type: records, plans: ["+abs(t, "../../examples/quickstart/plans")+"], records: ["+abs(t, "../../examples/quickstart/records")+"]}\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"findings at or above fail-on", []string{"audit", "-c", quickstart, "--now", "2026-11-30"}, exitFindings, ""},
		{"nothing at or above critical+", []string{"audit", "-c", plansOnly, "--now", "2026-09-21", "--fail-on", "critical"}, exitOK, ""},
		{"bad config", []string{"audit", "-c", bad}, exitUsage, "report.fail_on"},
		{"no config", []string{"audit"}, exitUsage, "no config"},
		{"bad flag", []string{"audit", "--bogus"}, exitUsage, "bogus"},
		{"bad --now", []string{"audit", "-c", quickstart, "--now", "yesterday"}, exitUsage, "--now"},
		{"bad --fail-on", []string{"audit", "-c", quickstart, "--fail-on", "severe"}, exitUsage, "--fail-on"},
		{"source failed", []string{"audit", "-c", failing, "--now", "2026-11-30"}, exitIncomplete, ""},
		{"unknown format", []string{"audit", "-c", quickstart, "-f", "pdf"}, exitUsage, "pdf"},
		{"two formats to stdout", []string{"audit", "-c", quickstart, "-f", "json,markdown"}, exitUsage, "stdout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := bfaudit(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			if tt.err != "" && !strings.Contains(stderr, tt.err) {
				t.Errorf("stderr %q does not mention %q", stderr, tt.err)
			}
		})
	}
}

func TestFailedSourceIsReportedNotFatal(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte(`sources:
  - {type: records, name: plans, plans: [`+abs(t, "../../examples/quickstart/plans")+`]}
  - {type: inventory, name: gone, files: [missing.yaml]}
`), 0o644)
	code, out, _ := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30", "-f", "json")
	if code != exitIncomplete {
		t.Errorf("exit %d, want %d", code, exitIncomplete)
	}
	r := decodeReport(t, out)
	if r.Summary.Complete || r.Summary.Backfills != 4 {
		t.Errorf("summary = %+v: want incomplete, and the four plans still audited", r.Summary)
	}
}

func abs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestSeveralFormatsToFiles(t *testing.T) {
	dir := t.TempDir()
	j, h, m, s := filepath.Join(dir, "r.json"), filepath.Join(dir, "out", "r.html"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.sarif")
	code, out, stderr := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-f", "table",
		"-o", "json="+j, "-o", "html="+h, "-o", "markdown="+m, "-o", "sarif="+s)
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "BACKFILLS") || !strings.Contains(out, "BF-1234") {
		t.Errorf("table not on stdout:\n%s", out)
	}
	for _, p := range []string{j, h, m, s} {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	html, _ := os.ReadFile(h)
	// Self-contained: inline charts, and its one script inline too.
	if !bytes.Contains(html, []byte("<svg")) || bytes.Contains(html, []byte("<script src")) || bytes.Contains(html, []byte(`<link rel="stylesheet"`)) ||
		bytes.Count(html, []byte("<script")) != 1 {
		t.Error("HTML report should carry inline SVG charts and no script or stylesheet from elsewhere")
	}
}

func TestTemplateOverride(t *testing.T) {
	tpl := filepath.Join(t.TempDir(), "mine.tmpl")
	os.WriteFile(tpl, []byte("{{len .Findings}} findings for {{range .Backfills}}{{.Backfill.ID}} {{end}}\n"), 0o644)
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte(`sources:
  - {type: records, plans: [`+abs(t, "../../examples/quickstart/plans")+`]}
report:
  templates: {markdown: "@`+tpl+`"}
`), 0o644)
	_, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30", "-f", "markdown")
	if !strings.HasSuffix(out, "findings for BF-1234 BF-2001 BF-3100 BF-4400 \n") {
		t.Errorf("override not used: %q %s", out, stderr)
	}
}

func TestConfigCommands(t *testing.T) {
	code, out, _ := bfaudit(t, "config", "validate", "-c", quickstart)
	if code != exitOK || !strings.Contains(out, "ok") {
		t.Errorf("validate: %d %s", code, out)
	}
	code, out, _ = bfaudit(t, "config", "sample")
	if code != exitOK || !strings.Contains(out, "type: records") || !strings.Contains(out, "type: inventory") {
		t.Errorf("sample lacks collectors' sections: %s", out)
	}
}

func TestRulesAndVersion(t *testing.T) {
	_, out, _ := bfaudit(t, "rules", "list")
	for _, id := range []string{"BF001", "BF003", "BF101"} {
		if !strings.Contains(out, id) {
			t.Errorf("rules list lacks %s", id)
		}
	}
	code, out, _ := bfaudit(t, "rules", "explain", "bf003")
	if code != 0 || !strings.Contains(out, "lingering-elevated-grant") || !strings.Contains(out, "grace (default") {
		t.Errorf("explain: %s", out)
	}
	if code, _, _ := bfaudit(t, "rules", "explain", "BF999"); code != exitUsage {
		t.Errorf("explain unknown: exit %d", code)
	}
	_, out, _ = bfaudit(t, "version")
	if !strings.HasPrefix(out, "bfaudit ") {
		t.Errorf("version: %q", out)
	}
}

// The printed sample is a config that loads: every section, rule setting,
// user rule and waiver in it is valid (cloud sources are left out because
// they need credentials to initialise).
func TestSampleConfigLoads(t *testing.T) {
	_, out, _ := bfaudit(t, "config", "sample")
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("sample is not YAML: %v", err)
	}
	var keep []any
	for _, s := range doc["sources"].([]any) {
		if typ := s.(map[string]any)["type"]; typ == "records" || typ == "inventory" {
			keep = append(keep, s)
		}
	}
	doc["sources"] = keep
	b, _ := yaml.Marshal(doc)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sample.yaml")
	os.WriteFile(cfg, b, 0o644)
	// validate checks that the folders and files the sources name are
	// there: make them, as a real checkout would have them.
	for _, s := range keep {
		for key, v := range s.(map[string]any) {
			paths, _ := v.([]any)
			for _, p := range paths {
				p := filepath.Join(dir, p.(string))
				if key == "files" {
					os.MkdirAll(filepath.Dir(p), 0o755)
					os.WriteFile(p, nil, 0o644)
				} else {
					os.MkdirAll(p, 0o755)
				}
			}
		}
	}
	if code, out, stderr := bfaudit(t, "config", "validate", "-c", cfg); code != exitOK {
		t.Errorf("sample does not validate: %s %s", out, stderr)
	}
}

// quickstartWithHistory copies the quickstart into a temporary folder and
// gives its config a history store there.
func quickstartWithHistory(t *testing.T) (dir, cfg string) {
	t.Helper()
	dir, cfg, b := copyQuickstart(t)
	write(t, cfg, string(b)+"\nhistory:\n  path: history.db\n")
	return dir, cfg
}

// copyQuickstart copies the quickstart into a temporary folder and returns
// it, its config's path and the config's text.
func copyQuickstart(t *testing.T) (dir, cfg string, config []byte) {
	t.Helper()
	dir = t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(abs(t, "../../examples/quickstart"))); err != nil {
		t.Fatal(err)
	}
	cfg = filepath.Join(dir, "bfaudit.yaml")
	config, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dir, cfg, config
}
