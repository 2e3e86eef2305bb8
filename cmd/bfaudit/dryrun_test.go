package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// dryRunSetup is an estate with findings, a GitHub fake that refuses
// writes (counting them) and a Slack digest posted every run, which a dry
// run needs no credentials for.
func dryRunSetup(t *testing.T) (cfg string, writes *atomic.Int32) {
	t.Helper()
	writes = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writes.Add(1)
			http.Error(w, "no writes in a dry run", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("[]"))
	}))
	t.Cleanup(srv.Close)
	cfg = filepath.Join(t.TempDir(), "c.yaml")
	write(t, cfg, `sources:
  - {type: records, plans: [`+abs(t, "../../examples/quickstart/plans")+`], records: [`+abs(t, "../../examples/quickstart/records")+`]}
owners:
  alice@example.com: {github: alice}
github:
  repo: acme/cleanup
  base_url: `+srv.URL+`
  token_env: BFAUDIT_TEST_NO_SUCH_TOKEN
slack:
  channel: "#leads"
  token_env: BFAUDIT_TEST_NO_SUCH_SLACK_TOKEN
  period: every
`)
	return cfg, writes
}

// planLines decodes a dry-run plan line by line, as `jq` would read it,
// and returns the sinks that planned calls.
func planLines(t *testing.T, plan string) map[string]int {
	t.Helper()
	sinks := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(plan))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var call struct {
			Sink string `json:"sink"`
		}
		if err := json.Unmarshal(sc.Bytes(), &call); err != nil {
			t.Fatalf("a plan line is not JSON (%v): %q", err, sc.Text())
		}
		sinks[call.Sink]++
	}
	if sinks["github"] == 0 || sinks["slack"] == 0 {
		t.Errorf("want planned calls from both sinks, got %v:\n%.1000s", sinks, plan)
	}
	return sinks
}

// Issue 13.9: the dry run's plan is JSON Lines on a stream of its own.
func TestDryRunPlanIsJSONLines(t *testing.T) {
	cfg, writes := dryRunSetup(t)
	args := []string{"audit", "-c", cfg, "--now", "2026-11-30", "-f", "json"}

	// Bare: the plan alone on stdout, pipeable to jq; the report on stderr.
	code, out, stderr := bfaudit(t, append(args, "--dry-run")...)
	if code != exitFindings && code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	bare := planLines(t, out)
	if !strings.Contains(stderr, `"findings"`) {
		t.Errorf("the report meant for stdout should be on stderr:\n%.500s", stderr)
	}

	// --dry-run=- is the same.
	_, dash, _ := bfaudit(t, append(args, "--dry-run=-")...)
	if got := planLines(t, dash); got["github"] != bare["github"] || got["slack"] != bare["slack"] {
		t.Errorf("--dry-run=- planned %v, bare %v", got, bare)
	}

	// To a file: the report keeps stdout.
	file := filepath.Join(t.TempDir(), "plan.jsonl")
	code, out, stderr = bfaudit(t, append(args, "--dry-run="+file)...)
	if code != exitFindings && code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	decodeReport(t, out)
	plan, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := planLines(t, string(plan)); got["github"] != bare["github"] || got["slack"] != bare["slack"] {
		t.Errorf("the file planned %v, stdout %v", got, bare)
	}
	if strings.Contains(stderr, `"sink":"github"`) {
		t.Errorf("plan lines leaked to stderr:\n%.500s", stderr)
	}
	if writes.Load() != 0 {
		t.Errorf("%d writes in dry runs", writes.Load())
	}
}

func TestDryRunFileErrors(t *testing.T) {
	cfg, _ := dryRunSetup(t)
	// pflag takes an optional value only after '=': say so.
	code, _, stderr := bfaudit(t, "audit", "-c", cfg, "--dry-run", "plan.jsonl")
	if code != exitUsage || !strings.Contains(stderr, "--dry-run=plan.jsonl") {
		t.Errorf("exit %d, want %d and a hint to write --dry-run=plan.jsonl: %s", code, exitUsage, stderr)
	}
	// A plan file that cannot be created (its folder would be a file)
	// stops the run before it starts; a missing folder is made.
	notDir := filepath.Join(t.TempDir(), "file")
	write(t, notDir, "")
	code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--dry-run="+filepath.Join(notDir, "plan.jsonl"))
	if code != exitUsage || !strings.Contains(stderr, "--dry-run") || out != "" {
		t.Errorf("exit %d, want %d naming --dry-run; stdout %q; stderr %s", code, exitUsage, out, stderr)
	}
}
