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

// QuickstartAWS is the folder of the quickstart's saved AWS answers
// (examples/quickstart/aws), cleared of service's files, for a test that
// saves them anew from its fake: only with BFAUDIT_WRITE_QUICKSTART=1,
// else the test is skipped. The answers are data the quickstart's tests
// read back; this is how they were made.
func QuickstartAWS(t *testing.T, service ...string) string {
	t.Helper()
	if os.Getenv("BFAUDIT_WRITE_QUICKSTART") != "1" {
		t.Skip("set BFAUDIT_WRITE_QUICKSTART=1 to save the quickstart's AWS answers anew")
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "examples", "quickstart", "aws")
	for _, s := range service {
		old, _ := filepath.Glob(filepath.Join(dir, "*", "*", s+".jsonl"))
		for _, p := range old {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}
