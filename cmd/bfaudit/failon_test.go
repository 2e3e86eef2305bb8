package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Trial friction 2: audit and plan check share one default (high), and
// --fail-on never exits 0 whatever the findings, but not over a source
// that failed (3).
func TestFailOnDefaultAndNever(t *testing.T) {
	dir := t.TempDir()
	risky := filepath.Join(dir, "bf-7001.yaml") // high BF102, medium BF107...
	write(t, risky, riskyPlan)
	waiveHigh := filepath.Join(dir, "waive.yaml") // ...BF102 waived: medium at most
	write(t, waiveHigh, `waivers:
  - rule: BF102
    backfill: bf_7001
    reason: the dataEditor binding is removed by the runbook step
    approver: carol@example.com
    expires: 2026-06-01
`)
	never := filepath.Join(dir, "never.yaml")
	write(t, never, "report: {fail_on: never}\n")
	failing := filepath.Join(dir, "failing.yaml")
	os.WriteFile(failing, []byte("sources:\n  - {type: records, plans: [does-not-exist]}\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"plan check: high fails by default", []string{"plan", "check", risky}, exitFindings},
		{"plan check: medium passes by default", []string{"plan", "check", "-c", waiveHigh, risky}, exitOK},
		{"plan check: --fail-on medium", []string{"plan", "check", "-c", waiveHigh, "--fail-on", "medium", risky}, exitFindings},
		{"plan check: never", []string{"plan", "check", "--fail-on", "never", risky}, exitOK},
		{"audit: high fails by default", []string{"audit", "-c", quickstart, "--now", "2026-11-30"}, exitFindings},
		{"audit: never", []string{"audit", "-c", quickstart, "--now", "2026-11-30", "--fail-on", "never"}, exitOK},
		{"plan check: report.fail_on never in the config", []string{"plan", "check", "-c", never, risky}, exitOK},
		{"audit: never still exits 3 when a source failed", []string{"audit", "-c", failing, "--fail-on", "never"}, exitIncomplete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args[0] == "plan" {
				args = append(args, "--now", "2026-03-01")
			}
			code, _, stderr := bfaudit(t, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
		})
	}
	for _, cmd := range [][]string{{"audit", "-c", quickstart}, {"plan", "check", risky}} {
		code, _, stderr := bfaudit(t, append(cmd, "--fail-on", "severe")...)
		if code != exitUsage || !strings.Contains(stderr, "never") {
			t.Errorf("%s --fail-on severe: exit %d, stderr %s", cmd[0], code, stderr)
		}
	}
	for _, cmd := range [][]string{{"audit", "--help"}, {"plan", "check", "--help"}} {
		_, help, _ := bfaudit(t, cmd...)
		if !strings.Contains(strings.Join(strings.Fields(help), " "), "or never; default report.fail_on in the config, high") {
			t.Errorf("%s does not give the default:\n%s", strings.Join(cmd, " "), help)
		}
	}
}
