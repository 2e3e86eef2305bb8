package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --cpuprofile and --memprofile write their profiles, whatever the
// command's outcome, and stay out of the help.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	// A command that fails (no config) still writes both.
	code, _, _ := bfaudit(t, "audit", "--cpuprofile", cpu, "--memprofile", mem)
	if code == 0 {
		t.Fatal("audit without a config succeeded")
	}
	for _, p := range []string{cpu, mem} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: not written (%v)", p, err)
		}
	}
	_, out, _ := bfaudit(t, "audit", "--help")
	if strings.Contains(out, "cpuprofile") || strings.Contains(out, "memprofile") {
		t.Error("the profile flags show in the help")
	}
}
