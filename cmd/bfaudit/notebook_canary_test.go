package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// canaryNotebook writes a correction notebook of BF-<num> whose saved
// output prints a service-account key, and returns the key's id and the
// canary pieces that must appear in no text bfaudit writes.
func canaryNotebook(t *testing.T, dir, num string) (keyID string, canaries []string) {
	t.Helper()
	b := make([]byte, 20)
	rand.Read(b)
	keyID = hex.EncodeToString(b)
	rand.Read(b)
	body := "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC" + hex.EncodeToString(b) + "CANARY" + num
	key, _ := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": "shop-analytics", "private_key_id": keyID,
		"private_key":  "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n",
		"client_email": "backfill-runner@shop-analytics.iam.gserviceaccount.com",
	}, "", " ")
	nb, _ := json.Marshal(map[string]any{
		"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{},
		"cells": []any{map[string]any{"cell_type": "code", "metadata": map[string]any{}, "execution_count": 1,
			"source":  "print(open('key.json').read())\n",
			"outputs": []any{map[string]any{"output_type": "stream", "name": "stdout", "text": string(key) + "\n"}}}},
	})
	write(t, filepath.Join(dir, "bf_"+num+"_refund_fix.ipynb"), string(nb))
	return keyID, []string{body, body[:24], body[len(body)-24:]}
}

// The canary, end to end: a notebook tied to a backfill keeps a
// service-account key the IAM inventory reports active. The audit reports
// it critical (BF022), and the key's private part appears in no report
// format, no log line (verbose), no GitHub issue body or Slack payload
// (the dry run's plan holds every call the sinks would make) and no fix
// script. Read from files, and from the real Jupyter server when
// BFAUDIT_TEST_JUPYTER_URL is set (CI sets it).
func TestNotebookCanaryNeverLeaves(t *testing.T) {
	t.Run("files", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "notebooks"), 0o755)
		canaryAudit(t, dir, func(num string) (string, []string, string) {
			id, c := canaryNotebook(t, filepath.Join(dir, "notebooks"), num)
			return id, c, "{type: notebooks, name: analytics, paths: [notebooks/]}"
		})
	})
	t.Run("jupyter", func(t *testing.T) {
		url, tok, root := os.Getenv("BFAUDIT_TEST_JUPYTER_URL"), os.Getenv("BFAUDIT_TEST_JUPYTER_TOKEN"), os.Getenv("BFAUDIT_TEST_JUPYTER_DIR")
		if url == "" || tok == "" || root == "" {
			t.Skip("set BFAUDIT_TEST_JUPYTER_URL, BFAUDIT_TEST_JUPYTER_TOKEN and BFAUDIT_TEST_JUPYTER_DIR (a jupyter_server with a token, and its root directory; .ci/run starts one) to read the canary notebook through a real Jupyter")
		}
		t.Setenv("BFAUDIT_CANARY_JUPYTER_TOKEN", tok)
		b := make([]byte, 4)
		rand.Read(b)
		run := "canary-" + hex.EncodeToString(b)
		os.MkdirAll(filepath.Join(root, run), 0o755)
		t.Cleanup(func() { os.RemoveAll(filepath.Join(root, run)) })
		canaryAudit(t, t.TempDir(), func(num string) (string, []string, string) {
			id, c := canaryNotebook(t, filepath.Join(root, run), num)
			return id, c, fmt.Sprintf("{type: notebooks, name: analytics, jupyter_url: %q, token_env: BFAUDIT_CANARY_JUPYTER_TOKEN, root: %s}", url, run)
		})
	})
}

func canaryAudit(t *testing.T, dir string, source func(num string) (keyID string, canaries []string, cfg string)) {
	num := fmt.Sprint(time0Num())
	keyID, canaries, src := source(num)
	os.MkdirAll(filepath.Join(dir, "plans"), 0o755)
	write(t, filepath.Join(dir, "plans/bf.yaml"), "id: BF-"+num+"\npurpose: refund fix\nowner: alice@example.com\nstatus: verified\ntimeline: {completed_at: 2026-10-01}\n")
	write(t, filepath.Join(dir, "iam.yaml"), fmt.Sprintf(`artifacts:
  - kind: credential
    system: gcpiam
    uri: gcpiam://shop-analytics/serviceAccounts/backfill-runner@shop-analytics.iam.gserviceaccount.com/keys/%s
    name: backfill-runner key
    state: active
`, keyID))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("[]"))
	}))
	t.Cleanup(srv.Close)
	cfg := filepath.Join(dir, "bfaudit.yaml")
	write(t, cfg, `sources:
  - {type: records, name: plans, plans: [plans/]}
  - {type: inventory, name: iam, files: [iam.yaml]}
  - `+src+`
owners:
  alice@example.com: {github: alice, email: alice@example.com}
github:
  repo: acme/cleanup
  base_url: `+srv.URL+`
  token_env: BFAUDIT_TEST_NO_SUCH_TOKEN
slack:
  channel: "#leads"
  token_env: BFAUDIT_TEST_NO_SUCH_SLACK_TOKEN
  period: every
`)
	out := func(f string) string { return filepath.Join(dir, "report."+f) }
	plan := filepath.Join(dir, "plan.jsonl")
	code, stdout, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30", "-v", "--dry-run="+plan,
		"-f", "json,table,markdown,html,sarif", "-o", "json="+out("json"), "-o", "table="+out("table"),
		"-o", "markdown="+out("md"), "-o", "html="+out("html"), "-o", "sarif="+out("sarif"))
	if code != exitFindings {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	_, script, fixErr := bfaudit(t, "fix", "-c", cfg, "--now", "2026-11-30", "--backfill", "BF-"+num)
	texts := map[string]string{"stdout": stdout, "stderr (verbose log)": stderr, "fix script": script, "fix stderr": fixErr}
	for _, f := range []string{"json", "table", "md", "html", "sarif"} {
		b, err := os.ReadFile(out(f))
		if err != nil {
			t.Fatal(err)
		}
		texts["report."+f] = string(b)
	}
	b, err := os.ReadFile(plan)
	if err != nil || !strings.Contains(string(b), `"sink":"github"`) || !strings.Contains(string(b), `"sink":"slack"`) {
		t.Fatalf("the dry run planned no GitHub and Slack calls (%v):\n%.500s", err, b)
	}
	texts["dry-run plan (GitHub issue bodies, Slack payloads)"] = string(b)
	for name, text := range texts {
		for _, c := range canaries {
			if strings.Contains(text, c) {
				t.Errorf("the canary key %q leaked into %s", c, name)
			}
		}
	}
	var r model.Report
	if err := json.Unmarshal([]byte(texts["report.json"]), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings {
		if f.RuleID == "BF022" {
			found = true
			if f.Severity != model.SeverityCritical || !strings.Contains(f.Message, "still active") {
				t.Errorf("BF022 %s: %s", f.Severity, f.Message)
			}
		}
	}
	if !found {
		t.Errorf("no BF022 finding for the notebook keeping an active key:\n%s", texts["report.table"])
	}
	if !strings.Contains(texts["dry-run plan (GitHub issue bodies, Slack payloads)"], "BF022") {
		t.Error("the GitHub issue planned for the backfill does not mention BF022")
	}
}

// time0Num is a backfill number no other run of the test shares (the
// Jupyter root is shared).
func time0Num() int64 {
	b := make([]byte, 4)
	rand.Read(b)
	return 100000000 + int64(b[0])<<16 | int64(b[1])<<8 | int64(b[2])
}
