package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/internal/memlimit"
)

// Issue 13.8: --verbose logs every HTTP call of the sources and sinks:
// method, URL without credentials, status, duration; never a token.
func TestVerboseLogsEachHTTPCall(t *testing.T) {
	const token = "canary-airflow-token-7f3e"
	t.Setenv("BFAUDIT_TEST_AIRFLOW_TOKEN", token)
	airflow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"title":"Not Found"}`, http.StatusNotFound)
	}))
	defer airflow.Close()
	fake := newGHFake(t)
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	write(t, cfg, `sources:
  - {type: records, plans: [`+abs(t, "../../examples/quickstart/plans")+`]}
  - {type: airflow, name: af, url: `+airflow.URL+`, api_version: "1", token_env: BFAUDIT_TEST_AIRFLOW_TOKEN}
github:
  repo: acme/cleanup
  base_url: `+fake.srv.URL+`
  token_env: BFAUDIT_TEST_NO_SUCH_TOKEN
  dry_run: true
`)
	args := []string{"audit", "-c", cfg, "--now", "2026-11-30", "-f", "json", "-o", filepath.Join(t.TempDir(), "r.json")}
	_, _, stderr := bfaudit(t, append(args, "--verbose")...)
	type call struct {
		Msg      string  `json:"msg"`
		Level    string  `json:"level"`
		Method   string  `json:"method"`
		URL      string  `json:"url"`
		Status   int     `json:"status"`
		Duration float64 `json:"duration"`
		Error    string  `json:"error"`
	}
	var calls []call
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		var c call
		if json.Unmarshal(sc.Bytes(), &c) == nil && c.Msg == "http call" {
			calls = append(calls, c)
		}
	}
	seen := map[string]bool{}
	for _, c := range calls {
		// A call without an answer (one cancelled when a listing beside
		// it failed) says why instead.
		if c.Level != "DEBUG" || c.Method == "" || (c.Status == 0 && c.Error == "") {
			t.Errorf("incomplete call log: %+v", c)
		}
		switch {
		case strings.HasPrefix(c.URL, airflow.URL+"/api/v1/") && c.Status == http.StatusNotFound:
			seen["airflow"] = true
		case strings.HasPrefix(c.URL, fake.srv.URL+"/api/v3/repos/acme/cleanup/issues") && c.Method == http.MethodGet && c.Status == http.StatusOK:
			seen["github"] = true
		}
	}
	if !seen["airflow"] || !seen["github"] {
		t.Errorf("want the airflow source's and the GitHub sink's calls logged, got %+v\nstderr:\n%.2000s", calls, stderr)
	}
	if strings.Contains(stderr, token) {
		t.Error("the airflow token is in the log")
	}
	// Without --verbose, no call is logged.
	_, _, quiet := bfaudit(t, args...)
	if strings.Contains(quiet, `"http call"`) {
		t.Errorf("calls logged without --verbose:\n%.1000s", quiet)
	}
}

// TestVerboseLogsMemoryLimit: what main decided about the runtime's
// memory limit is one debug line, so a user can see why a run in a
// container collects harder.
func TestVerboseLogsMemoryLimit(t *testing.T) {
	old := memory
	t.Cleanup(func() { memory = old })
	memory = memlimit.Result{Limit: 2 << 30, Set: 2 << 30 * 9 / 10, Why: "90% of the cgroup's memory limit"}
	_, _, stderr := bfaudit(t, "version", "--verbose")
	if !strings.Contains(stderr, `"msg":"memory limit"`) || !strings.Contains(stderr, `"soft_limit_bytes":1932735283`) {
		t.Errorf("--verbose stderr lacks the memory limit line:\n%s", stderr)
	}
	_, _, stderr = bfaudit(t, "version")
	if strings.Contains(stderr, "memory limit") {
		t.Errorf("without --verbose the memory limit is logged:\n%s", stderr)
	}
}
