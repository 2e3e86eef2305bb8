package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Trial friction 11, off a terminal: one plain line per source as it
// finishes, with what it read, its time and its notes (no stray log
// record); nothing with --quiet.
func TestProgressLinesOffATerminal(t *testing.T) {
	code, _, stderr := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30")
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, src := range []string{"plans (records)", "scheduler (airflow)", "flags (unleash)", "dashboards (grafana)",
		"analytics (notebooks)", "warehouse-dbt (dbt)", "exports (inventory)"} {
		if n := strings.Count(stderr, "  "+src+": ok in "); n != 1 {
			t.Errorf("%s: %d lines, want 1:\n%s", src, n, stderr)
		}
	}
	if !strings.Contains(stderr, "  plans (records): ok in ") || !strings.Contains(stderr, "units, read 4 plans") {
		t.Errorf("a finished line says what was read:\n%s", stderr)
	}
	if !strings.Contains(stderr, "flags (unleash): ok in ") || !strings.Contains(stderr, "; note: projects read: default") {
		t.Errorf("the unleash note belongs on its source's line:\n%s", stderr)
	}
	if strings.Contains(stderr, "source note") || strings.Contains(stderr, `"level":"INFO"`) && strings.Contains(stderr, "note") {
		t.Errorf("a note went out as a log record:\n%s", stderr)
	}
	code, out, stderr := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-q", "-o", filepath.Join(t.TempDir(), "r.json"))
	if code != exitFindings || stderr != "" || out != "" {
		t.Errorf("--quiet: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// A failed source is told once on stderr, with or without progress; the
// report still lists its coverage.
func TestSourceFailureToldOnce(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte(`sources:
  - {type: records, name: plans, plans: [`+abs(t, "../../examples/quickstart/plans")+`]}
  - {type: inventory, name: gone, files: [missing.yaml]}
`), 0o644)
	for _, quiet := range []bool{false, true} {
		args := []string{"audit", "-c", cfg, "--now", "2026-11-30", "-f", "json"}
		if quiet {
			args = append(args, "-q")
		}
		code, out, stderr := bfaudit(t, args...)
		if code != exitIncomplete {
			t.Errorf("exit %d, want 3", code)
		}
		if n := strings.Count(stderr, "missing.yaml"); n != 1 {
			t.Errorf("quiet=%v: the failure is told %d times:\n%s", quiet, n, stderr)
		}
		if r := decodeReport(t, out); len(r.Coverage) != 2 || r.Coverage[0].Full() {
			t.Errorf("the report lists coverage %+v", r.Coverage)
		}
	}
}

func TestFinishedLine(t *testing.T) {
	c := model.Coverage{Source: "wh", System: "bigquery", Status: model.CoverageDegraded,
		Reads:  []model.UnitRead{{Scope: "p1", What: "tables", Read: 12}, {Scope: "p2", What: "tables", Read: 3}},
		Errors: []model.ScopeError{{Scope: "p3", Error: "403 denied"}}, Notes: []string{"p4 is empty"}}
	got := finishedLine(c, 1500*time.Millisecond)
	want := "  wh (bigquery): degraded in 1.5s, 2 units, read 15 tables; p3 did not answer: 403 denied; note: p4 is empty"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// A driver's multi-line error (pgx lists every address it tried)
	// still gives the source one line.
	failed := model.Coverage{Source: "pg", System: "postgres", Status: model.CoverageFailed,
		Error: "connect: failed:\n\t127.0.0.1:1: refused\n\t[::1]:1: refused"}
	if got := finishedLine(failed, time.Second); strings.Contains(got, "\n") || !strings.HasSuffix(got, "connect: failed: 127.0.0.1:1: refused [::1]:1: refused") {
		t.Errorf("a failed source's line: %q", got)
	}
}
