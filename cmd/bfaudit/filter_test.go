package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// agrees checks a filtered report's counts against its rows.
func agrees(t *testing.T, r model.Report) {
	t.Helper()
	open, bySev := 0, map[string]int{}
	perBackfill := map[string]int{}
	for _, f := range r.Findings {
		if !f.Waived() {
			open++
			bySev[f.Severity.String()]++
			perBackfill[f.BackfillID]++
		}
	}
	if r.Summary.Findings != open || r.Summary.Backfills != len(r.Backfills) {
		t.Errorf("summary says %d findings, %d backfills; rows are %d and %d", r.Summary.Findings, r.Summary.Backfills, open, len(r.Backfills))
	}
	for _, sev := range model.Severities() {
		if r.Summary.BySeverity[sev.String()] != bySev[sev.String()] {
			t.Errorf("by_severity %s = %d, rows %d", sev, r.Summary.BySeverity[sev.String()], bySev[sev.String()])
		}
	}
	for _, b := range r.Backfills {
		if b.Findings != perBackfill[b.Backfill.ID] {
			t.Errorf("backfill %s says %d findings, rows %d", b.Backfill.ID, b.Findings, perBackfill[b.Backfill.ID])
		}
	}
}

// Trial friction 7: --severity, --owner and --backfill narrow what audit
// shows and what its exit status judges; counts agree with the rows.
func TestAuditFilters(t *testing.T) {
	base := []string{"audit", "-c", quickstart, "--now", "2026-11-30", "-f", "json"}
	code, out, _ := bfaudit(t, base...)
	full := decodeReport(t, out)
	if code != exitFindings {
		t.Fatalf("unfiltered exit %d", code)
	}
	for _, tc := range []struct {
		name string
		args []string
		keep func(f model.Finding) bool
		code int
	}{
		{"severity", []string{"--severity", "high"}, func(f model.Finding) bool { return f.Severity >= model.SeverityHigh }, exitFindings},
		{"owner by local part", []string{"--owner", "dana"}, func(f model.Finding) bool { return f.Owner == "dana@example.com" }, exitFindings},
		{"backfills, comma and repeat", []string{"--backfill", "bf_1234,BF-4242", "--backfill", "BF-3100"},
			func(f model.Finding) bool {
				return f.BackfillID == "BF-1234" || f.BackfillID == "BF-4242" || f.BackfillID == "BF-3100"
			}, exitFindings},
		{"a clean backfill passes", []string{"--backfill", "BF-2001"}, func(f model.Finding) bool { return f.BackfillID == "BF-2001" }, exitOK},
		{"only low shown, fail-on high passes", []string{"--severity", "low", "--backfill", "BF-4242"},
			func(f model.Finding) bool { return f.BackfillID == "BF-4242" }, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := bfaudit(t, append(base, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			r := decodeReport(t, out)
			want := 0
			for _, f := range full.Findings {
				if tc.keep(f) {
					want++
				}
			}
			if len(r.Findings) != want {
				t.Errorf("%d findings shown, want %d", len(r.Findings), want)
			}
			for _, f := range r.Findings {
				if !tc.keep(f) {
					t.Errorf("shown against the filter: %s %s %s %s", f.Severity, f.RuleID, f.BackfillID, f.Owner)
				}
			}
			agrees(t, r)
		})
	}
	code, _, stderr := bfaudit(t, append(base, "--severity", "severe")...)
	if code != exitUsage || !strings.Contains(stderr, "--severity") {
		t.Errorf("bad --severity: exit %d, %s", code, stderr)
	}
}

// The history store sees every finding: a filtered run resolves nothing.
func TestAuditFilterLeavesHistoryWhole(t *testing.T) {
	_, cfg, b := copyQuickstart(t)
	if err := os.WriteFile(cfg, append(b, []byte("\nhistory:\n  path: history.db\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	audit := func(now string, args ...string) model.Report {
		t.Helper()
		code, out, stderr := bfaudit(t, append([]string{"audit", "-c", cfg, "--now", now, "-f", "json"}, args...)...)
		if code != exitFindings && code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return decodeReport(t, out)
	}
	audit("2026-11-30T08:00:00Z")
	narrowed := audit("2026-11-30T09:00:00Z", "--backfill", "BF-2001", "--owner", "bob")
	agrees(t, narrowed)
	after := audit("2026-11-30T10:00:00Z")
	if after.History == nil {
		t.Fatal("no history in the report")
	}
	if len(after.History.Resolved) > 0 || len(after.History.New) > 0 {
		t.Errorf("the filtered run changed history: %d resolved, %d new", len(after.History.Resolved), len(after.History.New))
	}
}

// fix takes the same filters: only the findings shown get commands.
func TestFixFilters(t *testing.T) {
	code, out, stderr := bfaudit(t, "fix", "-c", quickstart, "--now", "2026-11-30", "-f", "json",
		"--severity", "critical", "--backfill", "BF-1234,BF-3100")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, `"severity": "high"`) || strings.Contains(out, `"severity": "medium"`) || !strings.Contains(out, `"severity": "critical"`) {
		t.Errorf("fix --severity critical plans other severities:\n%.2000s", out)
	}
	if !strings.Contains(out, `"id": "BF-1234"`) || !strings.Contains(out, `"id": "BF-3100"`) || strings.Contains(out, `"id": "BF-4242"`) {
		t.Errorf("fix --backfill BF-1234,BF-3100 plans:\n%.2000s", out)
	}
	_, out, _ = bfaudit(t, "fix", "-c", quickstart, "--now", "2026-11-30", "-f", "json", "--owner", "dana")
	if strings.Contains(out, `"id": "BF-1234"`) || !strings.Contains(out, `"id": "BF-3100"`) {
		t.Errorf("fix --owner dana plans:\n%.2000s", out)
	}
	dir := t.TempDir()
	_, _, _ = bfaudit(t, "fix", "-c", quickstart, "--now", "2026-11-30", "--backfill", "BF-1234", "-o", filepath.Join(dir, "plan.json"))
	if b, _ := os.ReadFile(filepath.Join(dir, "plan.json")); !strings.HasPrefix(string(b), "{") {
		t.Errorf("fix -o plan.json should write JSON, got %.80q", b)
	}
}
