package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Trial friction 3: plan check takes directories and quoted globs, and
// audit --from takes globs.
func TestPlanCheckDirectoriesAndGlobs(t *testing.T) {
	dir := t.TempDir()
	plans := filepath.Join(dir, "plans")
	os.Mkdir(plans, 0o755)
	body := "id: BF-%s\nstatus: planned\nwrite_mode: append\n"
	a, b := filepath.Join(plans, "a.yaml"), filepath.Join(plans, "b.yml")
	write(t, a, strings.Replace(body, "%s", "81", 1))
	write(t, b, strings.Replace(body, "%s", "82", 1))
	write(t, filepath.Join(plans, "notes.txt"), "not a plan")
	for _, arg := range []string{plans, plans + "/", filepath.Join(plans, "*")} {
		t.Run(arg, func(t *testing.T) {
			args := []string{"plan", "check", arg}
			if strings.HasSuffix(arg, "*") {
				args = []string{"plan", "check", filepath.Join(plans, "*.yaml"), filepath.Join(plans, "*.yml")}
			}
			code, out, stderr := bfaudit(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			ia, ib := strings.Index(out, a+":3: medium BF107"), strings.Index(out, b+":3: medium BF107")
			if ia < 0 || ib < 0 || ia > ib {
				t.Errorf("want a.yaml then b.yml checked:\n%s", out)
			}
			if strings.Contains(out+stderr, "notes.txt") {
				t.Errorf("notes.txt is not a plan:\n%s%s", out, stderr)
			}
		})
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for _, arg := range []string{empty, filepath.Join(dir, "nothing-*.yaml")} {
		code, out, stderr := bfaudit(t, "plan", "check", arg)
		if code != exitUsage || out != "" || !strings.Contains(stderr, arg) {
			t.Errorf("%s: exit %d, stdout %q, stderr %s; want 2 naming it", arg, code, out, stderr)
		}
	}
}

func TestAuditFromGlob(t *testing.T) {
	dir := t.TempDir()
	est := filepath.Join(dir, "shard-0.json")
	if code, _, stderr := bfaudit(t, "collect", "-c", quickstart, "--now", "2026-11-30", "-q", "--out", est); code != exitOK {
		t.Fatalf("collect exit %d: %s", code, stderr)
	}
	code, out, stderr := bfaudit(t, "audit", "--from", filepath.Join(dir, "shard-*.json"), "--now", "2026-11-30", "-f", "json")
	if code != exitFindings || decodeReport(t, out).Summary.Backfills == 0 {
		t.Errorf("audit --from GLOB: exit %d: %s", code, stderr)
	}
}
