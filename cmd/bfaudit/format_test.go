package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Trial friction 1: text and table are one writer wherever -f is.
func TestTextAndTableAreOneWriter(t *testing.T) {
	dir := t.TempDir()
	risky := filepath.Join(dir, "bf-7001.yaml")
	write(t, risky, riskyPlan)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"audit", []string{"audit", "-c", quickstart, "--now", "2026-11-30"}},
		{"plan check", []string{"plan", "check", "--now", "2026-03-01", risky}},
		{"fix", []string{"fix", "-c", quickstart, "--now", "2026-11-30", "--backfill", "BF-1234"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, text, stderr := bfaudit(t, append(tc.args, "-f", "text")...)
			_, table, _ := bfaudit(t, append(tc.args, "-f", "table")...)
			if text == "" || text != table {
				t.Errorf("-f text and -f table differ (stderr %s):\n--- text ---\n%s\n--- table ---\n%s", stderr, text, table)
			}
		})
	}
	_, help, _ := bfaudit(t, "audit", "--help")
	if !strings.Contains(help, "text is table") {
		t.Errorf("audit --help does not say text is table:\n%s", help)
	}
}

// Trial friction 5: with no --format, -o's extension names the format.
func TestOutputFormatFromExtension(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		file, starts string
	}{
		{"r.html", "<!DOCTYPE html"},
		{"r.htm", "<!DOCTYPE html"},
		{"r.json", "{"},
		{"r.sarif", `{`},
		{"r.sarif.json", `{`},
		{"r.md", "#"},
		{"r.txt", "bfaudit report"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			code, out, stderr := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-o", path)
			if code != exitFindings {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if out != "" {
				t.Errorf("-o alone writes that one report; stdout got:\n%.300s", out)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.TrimSpace(string(b))
			if !strings.HasPrefix(got, tc.starts) {
				t.Errorf("%s starts %.80q, want %q", tc.file, got, tc.starts)
			}
			if strings.Contains(tc.file, "sarif") && !strings.Contains(got, `"runs"`) {
				t.Errorf("%s is not SARIF:\n%.300s", tc.file, got)
			}
			if tc.file == "r.json" && !strings.Contains(got, `"summary"`) {
				t.Errorf("%s is not the JSON report:\n%.300s", tc.file, got)
			}
		})
	}
	t.Run("a named format wins", func(t *testing.T) {
		path := filepath.Join(dir, "named.html")
		bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-f", "json", "-o", path)
		if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "{") {
			t.Errorf("-f json -o named.html should write JSON, got %.80q", b)
		}
	})
	t.Run("unknown extension", func(t *testing.T) {
		code, _, stderr := bfaudit(t, "audit", "-c", quickstart, "--now", "2026-11-30", "-o", filepath.Join(dir, "r.pdf"))
		if code != exitUsage || !strings.Contains(stderr, "--output") || !strings.Contains(stderr, ".pdf") {
			t.Errorf("exit %d, stderr %s", code, stderr)
		}
	})
}
