package collectortest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// QuickstartAccounts are the two AWS accounts of the quickstart's BF-4400,
// each read through QuickstartRole.
var QuickstartAccounts = []string{"111111111111", "222222222222"}

// QuickstartRole is the role the quickstart's answers were saved through.
const QuickstartRole = "bfaudit-read"

// QuickstartAWS gives the folders of the quickstart's saved AWS answers,
// cleared of service's files, for a test that saves them anew from its
// fake: full (examples/quickstart/aws), BF-4400 as it was left, and
// cleaned (cmd/bfaudit/testdata/aws-cleaned), the same accounts once
// its machinery is gone. Only with BFAUDIT_WRITE_QUICKSTART=1, else the
// test is skipped. The answers are data the quickstart's tests read
// back; this is how they were made.
func QuickstartAWS(t *testing.T, service ...string) (full, cleaned string) {
	t.Helper()
	if os.Getenv("BFAUDIT_WRITE_QUICKSTART") != "1" {
		t.Skip("set BFAUDIT_WRITE_QUICKSTART=1 to save the quickstart's AWS answers anew")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	full = filepath.Join(root, "examples", "quickstart", "aws")
	cleaned = filepath.Join(root, "cmd", "bfaudit", "testdata", "aws-cleaned")
	for _, dir := range []string{full, cleaned} {
		for _, s := range service {
			old, _ := filepath.Glob(filepath.Join(dir, "*", "*", s+".jsonl"))
			for _, p := range old {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return full, cleaned
}
