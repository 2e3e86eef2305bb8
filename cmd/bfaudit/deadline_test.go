package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// stalledConfig writes a config whose every network source is a server
// that accepts and never answers, with per-call timeouts far longer than
// the run's deadline, plus the quickstart's plans.
func stalledConfig(t *testing.T) (cfg, reportPath string, stalled *hostile.Counter) {
	t.Helper()
	stalled = hostile.Count(hostile.Stall())
	stall := hostile.Server(t, stalled)
	dir := t.TempDir()
	t.Setenv("BFAUDIT_TEST_AIRFLOW_TOKEN", hostile.Canary)
	cfg = filepath.Join(dir, "c.yaml")
	write(t, cfg, `sources:
  - {type: records, name: plans, plans: [`+abs(t, "../../examples/quickstart/plans")+`]}
  - {type: airflow, name: airflow-a, url: `+stall.URL+`, api_version: "1", token_env: BFAUDIT_TEST_AIRFLOW_TOKEN, timeout: 10m}
  - {type: airflow, name: airflow-b, url: `+stall.URL+`, api_version: "2", token_env: BFAUDIT_TEST_AIRFLOW_TOKEN, timeout: 10m}
`)
	return cfg, filepath.Join(dir, "report.json"), stalled
}

// awaitStalled waits until both stalled sources have called, so the child
// is collecting (its signal handler set) before the test signals it: a
// fixed sleep raced the child's start on a loaded machine.
func awaitStalled(t *testing.T, stalled *hostile.Counter) {
	t.Helper()
	for end := time.Now().Add(time.Minute); stalled.N() < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the child never called the stalled sources")
		}
	}
}

// An audit whose sources all stall ends at its deadline, not theirs: the
// report is written, marked incomplete, with the stalled sources failed,
// and the exit code is 3 (issue 12).
func TestDeadlineEndsAStalledAudit(t *testing.T) {
	cfg, out, _ := stalledConfig(t)
	start := time.Now()
	code, _, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30", "--deadline", "2s", "-f", "json", "-o", "json="+out)
	took := time.Since(start)
	if code != exitIncomplete {
		t.Errorf("exit %d, want 3; stderr: %s", code, stderr)
	}
	if took > 2*time.Minute {
		t.Errorf("the audit took %s with a 2s deadline", took)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no report written: %v", err)
	}
	r := decodeReport(t, string(b))
	if r.Summary.Complete || !strings.Contains(strings.Join(r.Problems, " "), "deadline") {
		t.Errorf("complete = %v, problems = %q", r.Summary.Complete, r.Problems)
	}
	for _, c := range r.Coverage {
		if strings.HasPrefix(c.Source, "airflow") && c.Status != "failed" {
			t.Errorf("%s: %s, want failed", c.Source, c.Status)
		}
	}
	if len(r.Backfills) == 0 {
		t.Error("the plans that did answer are missing from the report")
	}
	if strings.Contains(stderr, hostile.Canary) || strings.Contains(string(b), hostile.Canary) {
		t.Error("the token leaked")
	}
}

// SIGTERM (what Kubernetes sends) ends the run the same way: the reports
// are written and the exit code is 3, not 143.
func TestSIGTERMWritesReports(t *testing.T) {
	if os.Getenv("BFAUDIT_TEST_CHILD") != "" {
		return // the child is run by the test itself (TestMain-free re-exec)
	}
	cfg, out, stalled := stalledConfig(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildAudit$")
	cmd.Env = append(os.Environ(), "BFAUDIT_TEST_CHILD=1",
		"BFAUDIT_TEST_CHILD_ARGS=audit\n-c\n"+cfg+"\n--now\n2026-11-30\n-f\njson\n-o\njson="+out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	awaitStalled(t, stalled)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the audit did not end within a minute of SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != exitIncomplete {
		t.Errorf("exit %d after SIGTERM, want 3; stderr: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no report written after SIGTERM: %v; stderr: %s", err, stderr.String())
	}
	if r := decodeReport(t, string(b)); r.Summary.Complete || !strings.Contains(strings.Join(r.Problems, " "), "interrupted") {
		t.Errorf("complete = %v, problems = %q", r.Summary.Complete, r.Problems)
	}
}

// TestChildAudit runs the audit in a child process for TestSIGTERMWritesReports.
func TestChildAudit(t *testing.T) {
	args := os.Getenv("BFAUDIT_TEST_CHILD_ARGS")
	if os.Getenv("BFAUDIT_TEST_CHILD") == "" || args == "" {
		t.Skip("run by TestSIGTERMWritesReports in a child process")
	}
	if d, err := time.ParseDuration(os.Getenv("BFAUDIT_TEST_FINISH_BUDGET")); err == nil {
		finishBudget = d
	}
	if d, err := time.ParseDuration(os.Getenv("BFAUDIT_TEST_DIGEST_LEASE")); err == nil {
		digestLease = d
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// The time to finish up after SIGTERM is counted from the signal, not from
// the run's start: with a history store that never answers and a long
// --deadline, the run still ends about finishBudget after the signal, as a
// pod's grace period requires. Before, the store had deadline+30s.
func TestFinishBudgetCountsFromTheSignal(t *testing.T) {
	if os.Getenv("BFAUDIT_TEST_CHILD") != "" {
		return
	}
	cfg, out, stalled := stalledConfig(t)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// History on a PostgreSQL port that accepts and never answers: its own
	// connect deadline (10s) outlasts the finish budget.
	t.Setenv("BFAUDIT_TEST_STALLED_PG", "postgres://bfaudit@"+hostile.AcceptAndStall(t)+"/history?sslmode=disable")
	write(t, cfg, string(b)+"history: {driver: postgres, dsn_env: BFAUDIT_TEST_STALLED_PG}\n")
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildAudit$")
	cmd.Env = append(os.Environ(), "BFAUDIT_TEST_CHILD=1", "BFAUDIT_TEST_FINISH_BUDGET=2s",
		"BFAUDIT_TEST_CHILD_ARGS=audit\n-c\n"+cfg+"\n--now\n2026-11-30\n--deadline\n1h\n-f\njson\n-o\njson="+out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	awaitStalled(t, stalled)
	cmd.Process.Signal(syscall.SIGTERM)
	signalled := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the audit did not end within a minute of SIGTERM")
	}
	if took := time.Since(signalled); took > 8*time.Second {
		t.Errorf("ended %s after SIGTERM with a 2s finish budget (the stalled store kept its own 10s connect deadline)", took.Round(time.Second))
	}
	if code := cmd.ProcessState.ExitCode(); code != exitIncomplete {
		t.Errorf("exit %d after SIGTERM, want 3; stderr: %s", code, stderr.String())
	}
	if _, err := os.ReadFile(out); err != nil {
		t.Errorf("no report written: %v; stderr: %s", err, stderr.String())
	}
}
