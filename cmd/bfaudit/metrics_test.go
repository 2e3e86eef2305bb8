package main

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/model"
)

// The quickstart audit writes its metrics file; a good run keeps its
// exit code (1: findings at or above high) and the file says it completed.
func TestAuditWritesMetricsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bfaudit.prom")
	code, _, stderr := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-f", "json", "-o", "json=/dev/null", "--metrics", path)
	if code != exitFindings {
		t.Errorf("exit %d, want %d; stderr: %s", code, exitFindings, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		`bfaudit_findings{severity="critical",rule="BF`,
		"bfaudit_last_success_timestamp_seconds 1.7959968e+09\n",
		"bfaudit_audit_duration_seconds ",
		`bfaudit_source_up{source="`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics file lacks %q:\n%s", want, text)
		}
	}
}

// A path that cannot be the metrics file is refused before the run, not
// after it (a missing folder is made: TestOutputFoldersAreMade).
func TestMetricsFileCheckedFirst(t *testing.T) {
	folder := filepath.Join(t.TempDir(), "x.prom")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := bfaudit(t, "audit", "-c", quickstart, "--metrics", folder)
	if code != exitUsage || !strings.Contains(stderr, "--metrics:") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// A Pushgateway that refuses the push is a problem of the run: exit 3,
// the report says so, and the metrics file says the run was incomplete.
func TestPushFailureIsExit3(t *testing.T) {
	var pushes int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		pushes++
		http.Error(w, "nope", http.StatusBadRequest)
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte(`sources:
  - {type: records, name: plans, plans: [`+abs(t, "../../examples/quickstart/plans")+`]}
metrics:
  pushgateway: {url: "`+srv.URL+`", job: nightly, timeout: 5s}
`), 0o644)
	prom := filepath.Join(dir, "bfaudit.prom")
	code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30", "-f", "json", "--metrics", prom)
	if code != exitIncomplete || pushes != 1 {
		t.Errorf("exit %d after %d pushes, want %d after 1; stderr: %s", code, pushes, exitIncomplete, stderr)
	}
	r := decodeReport(t, out)
	if r.Summary.Complete || len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], "metrics: pushgateway: PUT "+srv.URL+"/metrics/job/nightly") {
		t.Errorf("complete %v, problems %q", r.Summary.Complete, r.Problems)
	}
	if b, _ := os.ReadFile(prom); strings.Contains(string(b), "bfaudit_last_success_timestamp_seconds") {
		t.Errorf("the file claims a last success after a failed push:\n%s", b)
	}
}

// --dry-run plans the push and makes none.
func TestPushDryRun(t *testing.T) {
	var pushes int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { pushes++ }))
	defer srv.Close()
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte(`sources:
  - {type: records, name: plans, plans: [`+abs(t, "../../examples/quickstart/plans")+`]}
metrics:
  pushgateway: {url: "`+srv.URL+`"}
`), 0o644)
	_, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30", "--dry-run")
	if pushes != 0 || !strings.Contains(out, `{"sink":"pushgateway","method":"PUT","url":"`+srv.URL+`/metrics/job/bfaudit"`) {
		t.Errorf("%d pushes; plan %s; stderr %s", pushes, out, stderr)
	}
}

// The example alert rule fires on the quickstart's overdue critical
// findings. Two audits three days apart with a history store (critical
// findings are due in 2 days), each writing --metrics; promtool evaluates
// examples/prometheus/bfaudit-alerts.yml over each file's series as
// Prometheus would scrape them: quiet after the first run, firing after the
// second for each rule and owner with critical findings the report shows
// overdue.
func TestExampleAlertFiresOnQuickstartOverdue(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not found: install Debian's prometheus package (it ships /usr/bin/promtool; .ci/run does) to run the example alert on the quickstart")
	}
	dir, cfg := quickstartWithHistory(t)
	audit := func(now string) (model.Report, string) {
		m := filepath.Join(dir, now+".prom")
		code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", now, "-f", "json", "--metrics", m)
		if code != exitFindings {
			t.Fatalf("audit as of %s: exit %d: %s", now, code, stderr)
		}
		return decodeReport(t, out), m
	}
	_, first := audit("2026-11-30")
	r, second := audit("2026-12-03")

	c, err := config.Load(config.NewViper(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ rule, owner, team string }
	want := map[key]int{}
	for _, f := range r.Findings {
		if f.Severity == model.SeverityCritical && f.Overdue {
			want[key{f.RuleID, f.Owner, c.Teams.Name(f.Owner)}]++
		}
	}
	if len(want) == 0 {
		t.Fatal("the quickstart has no overdue critical finding three days on")
	}
	var alerts strings.Builder
	for _, k := range slices.SortedFunc(maps.Keys(want), func(a, b key) int { return strings.Compare(a.rule, b.rule) }) {
		team := "" // sum by drops an empty label
		if k.team != "" {
			team = fmt.Sprintf(", team: %q", k.team)
		}
		fmt.Fprintf(&alerts, "          - exp_labels: {severity: page, rule: %s, owner: %q%s}\n", k.rule, k.owner, team)
		fmt.Fprintf(&alerts, "            exp_annotations:\n              summary: %q\n", fmt.Sprintf(
			"%d critical backfill findings of %s are past their due date (owner %s)", want[k], k.rule, k.owner))
		alerts.WriteString("              description: \"The cleanup was due and is not done. The owner was told and reminded; see the bfaudit report or the backfill's issue.\"\n")
	}
	test := "rule_files: [" + abs(t, "../../examples/prometheus/bfaudit-alerts.yml") + "]\nevaluation_interval: 1m\ntests:\n" +
		promtoolCase(t, first, "        exp_alerts: []\n") + promtoolCase(t, second, "        exp_alerts:\n"+alerts.String())
	path := filepath.Join(dir, "alerts.test.yml")
	write(t, path, test)
	if out, err := exec.Command(promtool, "test", "rules", path).CombinedOutput(); err != nil {
		t.Errorf("promtool test rules: %v\n%s\n--- test file\n%s", err, out, test)
	}
}

// promtoolCase is a promtool rule test over the series of the metrics file
// at path, held for 30 minutes, expecting exp of the overdue alert at 20m.
func promtoolCase(t *testing.T, path, exp string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c strings.Builder
	c.WriteString("  - interval: 1m\n    input_series:\n")
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		fmt.Fprintf(&c, "      - series: %q\n        values: '%sx30'\n", line[:i], line[i+1:])
	}
	c.WriteString("    alert_rule_test:\n      - eval_time: 20m\n        alertname: BfauditOverdueCriticalFindings\n" + exp)
	return c.String()
}
