package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// The audit's --dry-run reaches the GitHub sink: it lists the labelled
// issues, prints the issues it would create, and writes nothing.
func TestAuditGitHubDryRun(t *testing.T) {
	var writes atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writes.Add(1)
			http.Error(w, "no writes in a dry run", http.StatusForbidden)
			return
		}
		if !strings.HasSuffix(r.URL.Path, "/repos/acme/cleanup/issues") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("[]"))
	}))
	defer srv.Close()
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte(`sources:
  - {type: records, plans: [`+abs(t, "../../examples/quickstart/plans")+`], records: [`+abs(t, "../../examples/quickstart/records")+`]}
owners:
  alice@example.com: {github: alice}
github:
  repo: acme/cleanup
  base_url: `+srv.URL+`
  token_env: BFAUDIT_TEST_NO_SUCH_TOKEN
`), 0o644)
	code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30", "--dry-run", "-f", "json")
	if code != exitFindings && code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if writes.Load() != 0 {
		t.Errorf("%d write calls in a dry run", writes.Load())
	}
	if !strings.Contains(stderr, "BF-3100") || !strings.Contains(strings.ToLower(stderr), "create") {
		t.Errorf("dry run should print the issues it would create:\n%s", stderr)
	}
	if !strings.HasPrefix(out, "{") {
		t.Errorf("dry-run text must not mix into the JSON report on stdout:\n%s", out)
	}
}
