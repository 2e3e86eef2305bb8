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
	// A bare --dry-run gives stdout to the plan; the report goes to stderr.
	if !strings.Contains(out, "BF-3100") || !strings.Contains(strings.ToLower(out), "create") {
		t.Errorf("dry run should print the issues it would create:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, "{") {
			t.Errorf("stdout holds something other than the JSON Lines plan: %q", line)
		}
	}
	if !strings.Contains(stderr, `"findings"`) {
		t.Errorf("the JSON report should be on stderr:\n%.500s", stderr)
	}
}

// With a history store and a weekly Slack digest, two audits in the same
// week post one digest; --force posts again; the second report knows the
// first run.
func TestAuditHistoryAndWeeklyDigest(t *testing.T) {
	var posts atomic.Int32
	var lastBody atomic.Value
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		b := make([]byte, r.ContentLength)
		r.Body.Read(b)
		lastBody.Store(string(b))
		w.Write([]byte("ok"))
	}))
	defer hook.Close()
	t.Setenv("BFAUDIT_TEST_SLACK_WEBHOOK", hook.URL)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte(`sources:
  - {type: records, plans: [`+abs(t, "../../examples/quickstart/plans")+`], records: [`+abs(t, "../../examples/quickstart/records")+`]}
history:
  path: `+filepath.Join(dir, "history.db")+`
slack:
  webhook_url_env: BFAUDIT_TEST_SLACK_WEBHOOK
  period: weekly
`), 0o644)
	code, _, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "-f", "json")
	if code != exitOK && code != exitFindings {
		t.Fatalf("first audit: exit %d: %s", code, stderr)
	}
	if posts.Load() == 0 {
		t.Fatal("no digest posted")
	}
	first := posts.Load()
	// A dry run prints the payloads, posts nothing and records nothing.
	_, dry, _ := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T09:00:00Z", "--dry-run", "--force", "-f", "json")
	if posts.Load() != first || !strings.Contains(dry, "blocks") {
		t.Errorf("dry run posted (%d) or printed no payload:\n%.500s", posts.Load()-first, dry)
	}
	code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-12-01T08:00:00Z", "-f", "json")
	if code != exitOK && code != exitFindings {
		t.Fatalf("second audit: exit %d: %s", code, stderr)
	}
	if posts.Load() != first {
		t.Errorf("a second audit in the same week posted again (%d posts)", posts.Load())
	}
	r := decodeReport(t, out)
	if r.History == nil || r.History.PreviousRun.IsZero() || len(r.History.Trend) != 2 {
		t.Errorf("history = %+v, want the previous run and a trend of 2", r.History)
	}
	for _, f := range r.Findings {
		if f.FirstSeen.Day() != 30 {
			t.Errorf("%s first seen %v, want the first run", f.RuleID, f.FirstSeen)
		}
	}
	bfaudit(t, "audit", "-c", cfg, "--now", "2026-12-01T09:00:00Z", "--force")
	if posts.Load() <= first {
		t.Error("--force did not post the digest again")
	}
	if body, _ := lastBody.Load().(string); !strings.Contains(body, "BF-3100") {
		t.Errorf("digest does not list the backfills: %.300s", body)
	}
}

func TestSlackWeeklyNeedsHistory(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte("slack:\n  channel: '#leads'\n"), 0o644)
	code, _, stderr := bfaudit(t, "config", "validate", "-c", cfg)
	if code != exitUsage || !strings.Contains(stderr, "slack.period") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
