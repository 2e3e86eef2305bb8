package metrics

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example alert rules shipped in examples/prometheus.
var alertsDir = filepath.Join("..", "..", "examples", "prometheus")

// The example rules are valid for Prometheus, and their unit tests (each
// alert fires when it should, stays quiet when it should not) pass.
func TestExampleAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not found: install Debian's prometheus package (it ships /usr/bin/promtool; .ci/run does) to check the example alert rules")
	}
	for _, args := range [][]string{
		{"check", "rules", "bfaudit-alerts.yml"},
		{"test", "rules", "bfaudit-alerts.test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = alertsDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// The rules name the metrics this package writes: a renamed metric
// would leave every alert silent.
func TestExampleAlertsUseTheMetricNames(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(alertsDir, "bfaudit-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Findings, SourceUp, LastSuccess} {
		if !strings.Contains(string(b), name) {
			t.Errorf("the example alerts do not use %s", name)
		}
	}
}
