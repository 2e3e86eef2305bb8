package all_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	_ "github.com/bfaudit/bfaudit/collectors/all"
)

// Every registered collector joins the fault matrix (testkit/faultmatrix):
// its package has a faultmatrix_test.go that runs the matrix under its own
// type name. A collector that does not, is not done (docs/trust.md,
// docs/CONTRIBUTING.md), so this test fails until it does.
func TestEveryCollectorJoinsTheFaultMatrix(t *testing.T) {
	names := collectors.Names()
	for _, name := range names {
		path := filepath.Join("..", name, "faultmatrix_test.go")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("collector %q has no fault matrix: %v (add %s calling faultmatrix.Run)", name, err, path)
			continue
		}
		run := regexp.MustCompile(`faultmatrix\.Run\(t,\s*"` + regexp.QuoteMeta(name) + `"`)
		if !run.Match(b) {
			t.Errorf("%s does not call faultmatrix.Run(t, %q, ...)", path, name)
		}
	}
	fmt.Printf("fault matrix: %d collectors joined (%v); each package's test prints its units\n", len(names), names)
}
