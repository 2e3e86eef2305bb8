package collectortest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
)

// QuickstartAccounts are the two AWS accounts of the quickstart's BF-4400,
// each read through QuickstartRole.
var QuickstartAccounts = []string{"111111111111", "222222222222"}

// QuickstartRole is the role the quickstart's answers were saved through.
const QuickstartRole = "bfaudit-read"

// QuickstartAccountSettings are the accounts of QuickstartAccounts, each
// through QuickstartRole, as a source lists them.
func QuickstartAccountSettings() []awsconf.Account {
	out := make([]awsconf.Account, len(QuickstartAccounts))
	for i, a := range QuickstartAccounts {
		out[i] = awsconf.Account{ID: a, Role: QuickstartRole}
	}
	return out
}

// SaveQuickstartAWS saves the quickstart's AWS answers of service anew
// (only with BFAUDIT_WRITE_QUICKSTART=1, else the test is skipped), twice:
// into examples/quickstart/aws, BF-4400 as it was left, and into
// cmd/bfaudit/testdata/aws-cleaned, the same accounts once its machinery
// is gone. source builds the test's fake and returns a source on it that
// saves its answers into dir; SaveQuickstartAWS collects it. The answers
// are data the quickstart's tests read back; this is how they were made.
func SaveQuickstartAWS(t *testing.T, source func(t *testing.T, dir string, cleaned bool) collectors.Collector, service ...string) {
	t.Helper()
	if os.Getenv("BFAUDIT_WRITE_QUICKSTART") != "1" {
		t.Skip("set BFAUDIT_WRITE_QUICKSTART=1 to save the quickstart's AWS answers anew")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	for _, v := range []struct {
		dir     string
		cleaned bool
	}{{filepath.Join(root, "examples", "quickstart", "aws"), false}, {filepath.Join(root, "cmd", "bfaudit", "testdata", "aws-cleaned"), true}} {
		for _, s := range service {
			old, _ := filepath.Glob(filepath.Join(v.dir, "*", "*", s+".jsonl"))
			for _, p := range old {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := Collect(t, source(t, v.dir, v.cleaned)); err != nil {
			t.Fatal(err)
		}
	}
}
