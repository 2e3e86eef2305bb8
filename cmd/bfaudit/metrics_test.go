package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// A folder that does not exist is refused before the run, not after it.
func TestMetricsFileCheckedFirst(t *testing.T) {
	code, _, stderr := bfaudit(t, "audit", "-c", quickstart, "--metrics", filepath.Join(t.TempDir(), "nope", "x.prom"))
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
