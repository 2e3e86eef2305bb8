package all_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	_ "github.com/bfaudit/bfaudit/collectors/all"
)

// A collector that judges a time (expired, idle, in use now) judges it at
// the audit's time, so `--now` reaches it: one that keeps a clock takes
// the audit's (collectors.Env.Now), and none reads the wall clock itself.
func TestEveryCollectorTakesTheAuditClock(t *testing.T) {
	clock := reflect.TypeOf(time.Now)
	wallClock := regexp.MustCompile(`\btime\.(Now\(\)|Since\(|Until\()`)
	for _, name := range collectors.Names() {
		f, _ := collectors.Lookup(name)
		c := f()
		v := reflect.ValueOf(c).Elem()
		for i := range v.NumField() {
			field := v.Type().Field(i)
			if field.Type != clock {
				continue
			}
			_, env := c.(collectors.UnitCollector)
			if _, ok := c.(collectors.Clocked); !ok && !env {
				t.Errorf("collector %q keeps a clock (%s) but takes none (collectors.Env.Now): --now does not reach it", name, field.Name)
			}
		}
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
