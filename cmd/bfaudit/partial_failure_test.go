package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// quickstartWithSinks copies the quickstart to a temporary directory and
// adds a history store and the GitHub sink pointed at fake.
func quickstartWithSinks(t *testing.T, fake *ghFake) (dir, cfg string) {
	t.Helper()
	dir, cfg, b := copyQuickstart(t)
	t.Setenv("BFAUDIT_TEST_GITHUB_TOKEN", "ghp_test_token_1234567890")
	b = append(b, []byte(`
history:
  path: history.db
github:
  repo: acme/cleanup
  base_url: `+fake.srv.URL+`
  token_env: BFAUDIT_TEST_GITHUB_TOKEN
  write_interval: 1ms
`)...)
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

// TestNothingTickedOnPartialFailure is issue 11's reproductions: a normal
// run of the quickstart, then one thing broken, then a second run. Whatever
// the broken unit reported stays as it was: nothing ticked, no issue
// closed, nothing resolved in history, exit 3, and the note names
// exactly the unit that did not answer.
func TestNothingTickedOnPartialFailure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		brk   func(t *testing.T, dir string)
		names string // the unit the notes must name
	}{
		{"inventory file unreadable", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "inventory/warehouse.yaml"), "artifacts:\n  - kind: table\n    uri: [unclosed\n")
		}, "exports / inventory/warehouse.yaml"},
		{"inventory file missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "inventory/warehouse.yaml"))
		}, "exports / inventory/warehouse.yaml"},
		{"inventory file empty", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "inventory/warehouse.yaml"), "")
		}, "exports / inventory/warehouse.yaml"},
		{"one DAG's tasks unreadable", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "airflow/dags/bf_3100_ledger_replay/tasks.json"), "{not json")
		}, "scheduler / dags/bf_3100_ledger_replay"},
		{"decision record unreadable", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "records/bf-1234.md"), "---\nbackfill_id: [unclosed\n---\n")
		}, "plans / records/bf-1234.md"},
		{"plan unparseable, record still reads", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "plans/bf-1234-refund-fix.yaml"), "id: BF-1234\npurpose: [unclosed\n")
		}, "plans / plans/bf-1234-refund-fix.yaml"},
		// The stand-in, from saved answers, for an account whose role is
		// refused: every AWS source's units in it fail, and BF-4400's
		// items there stay as they were (the collectors' own tests refuse
		// the role itself).
		{"one AWS account did not answer", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "aws/222222222222"))
		}, "aws-queues / 222222222222/eu-west-1"},
		{"scheduler failed", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "airflow"))
		}, "scheduler"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := newGHFake(t)
			dir, cfg := quickstartWithSinks(t, fake)
			code, out1, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "-f", "json")
			if code != exitFindings {
				t.Fatalf("run 1: exit %d: %s", code, stderr)
			}
			r1, before := decodeReport(t, out1), fake.snapshot()
			if len(before) == 0 {
				t.Fatal("run 1 filed no issue")
			}

			tc.brk(t, dir)
			code, out2, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T09:00:00Z", "-f", "json")
			if code != exitIncomplete {
				t.Errorf("run 2: exit %d, want 3; stderr: %s", code, stderr)
			}
			r2, after := decodeReport(t, out2), fake.snapshot()
			if r2.Summary.Complete {
				t.Error("run 2: summary.complete is true")
			}
			if r2.History == nil || len(r2.History.Resolved) != 0 {
				t.Errorf("run 2 resolved in history: %+v", r2.History)
			}
			noted := false
			for id, was := range before {
				now := after[id]
				if was.State == "open" && now.State != "open" {
					t.Errorf("%s: issue closed though a unit did not answer", id)
				}
				if n1, n2 := strings.Count(was.Body, "- [x]"), strings.Count(now.Body, "- [x]"); n2 > n1 {
					t.Errorf("%s: %d items ticked though a unit did not answer:\n%s", id, n2-n1, now.Body)
				}
				if now.Title != was.Title {
					t.Errorf("%s: title changed from %q to %q", id, was.Title, now.Title)
				}
				if strings.Contains(now.Body, "`"+tc.names+"`") {
					noted = true
				}
				if tc.names == "scheduler" && strings.Contains(now.Body, "plans / plans/") {
					t.Errorf("%s: note blames the plans, though only the scheduler failed:\n%s", id, now.Body)
				}
			}
			if !noted {
				t.Errorf("no issue names `%s` as unread:\n%v", tc.names, after)
			}
			// Severities and lifecycles stay as last known.
			sev1 := map[string]model.Severity{}
			for _, f := range r1.Findings {
				sev1[f.Fingerprint] = f.Severity
			}
			for _, f := range r2.Findings {
				if s, ok := sev1[f.Fingerprint]; ok && s != f.Severity {
					t.Errorf("%s %s: severity moved from %s to %s", f.RuleID, f.ArtifactURI, s, f.Severity)
				}
			}
			for _, b1 := range r1.Backfills {
				for _, b2 := range r2.Backfills {
					if b1.Backfill.ID == b2.Backfill.ID && b2.Lifecycle.Reached > b1.Lifecycle.Reached {
						t.Errorf("%s: lifecycle advanced from %s to %s", b1.Backfill.ID, b1.Lifecycle.Reached, b2.Lifecycle.Reached)
					}
				}
			}
		})
	}
}

// A sink that failed makes the report incomplete (issue 11, point 6).
func TestSinkFailureMarksReportIncomplete(t *testing.T) {
	fake := newGHFake(t)
	_, cfg := quickstartWithSinks(t, fake)
	fake.failWrites = 503
	code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "-f", "json")
	if code != exitIncomplete {
		t.Errorf("exit %d, want 3", code)
	}
	r := decodeReport(t, out)
	if r.Summary.Complete || len(r.Problems) == 0 || !strings.Contains(strings.Join(r.Problems, " "), "github") {
		t.Errorf("summary.complete = %v, problems = %q", r.Summary.Complete, r.Problems)
	}
	if !strings.Contains(stderr, "github") {
		t.Errorf("stderr does not name the failed sink:\n%s", stderr)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
