package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Trial friction 4: every output goes into a folder made if missing.
func TestOutputFoldersAreMade(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, "new", name, "out") }
	runs := []struct {
		name string
		args []string
		file string
	}{
		{"collect --out", []string{"collect", "-c", quickstart, "--out", in("estates") + ".json"}, in("estates") + ".json"},
		{"audit -o", []string{"audit", "-c", quickstart, "-o", "json=" + in("reports") + ".json"}, in("reports") + ".json"},
		{"audit --metrics", []string{"audit", "-c", quickstart, "--metrics", in("metrics") + ".prom"}, in("metrics") + ".prom"},
		{"audit --dry-run=FILE", []string{"audit", "-c", quickstart, "--dry-run=" + in("dry") + ".jsonl"}, in("dry") + ".jsonl"},
		{"fix -o", []string{"fix", "-c", quickstart, "--backfill", "BF-1234", "-o", in("fix") + ".sh"}, in("fix") + ".sh"},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			code, _, stderr := bfaudit(t, append(r.args, "--now", "2026-11-30", "-q")...)
			if code != exitOK && code != exitFindings {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if _, err := os.Stat(r.file); err != nil {
				t.Error(err)
			}
		})
	}
}
