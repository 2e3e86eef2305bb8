package all_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	_ "github.com/bfaudit/bfaudit/collectors/all"
)

// A collector that judges a time (expired, idle, in use now) judges it at
// the audit's time, so `--now` reaches it: every collector is handed the
// audit's clock (collectors.Env.Now), and none reads the wall clock itself.
func TestEveryCollectorTakesTheAuditClock(t *testing.T) {
	wallClock := regexp.MustCompile(`\btime\.(Now\(\)|Since\(|Until\()`)
	for _, name := range collectors.Names() {
		files, err := filepath.Glob(filepath.Join("..", name, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("collector %q: no sources at ../%s (%v)", name, name, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if m := wallClock.Find(b); m != nil {
				t.Errorf("%s reads the wall clock (%s): take the audit's clock (collectors.Env.Now) instead", path, m)
			}
		}
	}
}
