package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// Trial friction 9: collect counts backfills as the audit does, one per
// id, though the quickstart's plans and its scheduler both describe some.
func TestCollectCountsBackfillsAsTheAudit(t *testing.T) {
	est := filepath.Join(t.TempDir(), "estate.json")
	code, out, stderr := bfaudit(t, "collect", "-c", quickstart, "--now", "2026-11-30", "--out", est)
	if code != exitOK {
		t.Fatalf("collect exit %d: %s", code, stderr)
	}
	var saved int
	if _, err := fmt.Sscanf(out, "saved %d backfills", &saved); err != nil {
		t.Fatalf("collect's output: %v\n%s", err, out)
	}
	_, direct, _ := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-f", "json")
	_, fromFile, _ := bfaudit(t, "audit", "--from", est, "--now", "2026-11-30", "-f", "json")
	for name, s := range map[string]string{"audit": direct, "audit --from": fromFile} {
		if n := decodeReport(t, s).Summary.Backfills; n != saved {
			t.Errorf("collect saved %d backfills, %s counts %d", saved, name, n)
		}
	}
}
