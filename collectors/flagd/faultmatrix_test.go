package flagd_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/flagd"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// Each file holds an enabled flag of BF-7001, the completed backfill of
// the matrix: BF017 finds a live flag of a finished backfill in each.
const (
	replayJSON = `{"flags": {"bf-7001-replay-mode": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}`
	guardYAML  = "metadata: {backfill_id: bf-7001}\nflags:\n  suppress-emails:\n    state: ENABLED\n    variants: {\"on\": \"on\", \"off\": \"off\"}\n    defaultVariant: \"on\"\n"
)

func unit(scope string, breakIt func(t *testing.T, dir string)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: "file", Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "flags"), 0o755)
		for name, body := range map[string]string{"flags/replay.flagd.json": replayJSON, "flags/guard.flagd.yaml": guardYAML} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f := &flagd.Flagd{Files: []string{"flags/replay.flagd.json", "flags/*.yaml"}}
		if err := f.Init(collectors.Env{Source: "flagd", Selector: correlate.MustSelector(), BaseDir: dir, Now: time.Now}); err != nil {
			t.Fatal(err)
		}
		return f, func() { breakIt(t, dir) }
	}}
}

func TestFaultMatrix(t *testing.T) {
	faultmatrix.Run(t, "flagd", []faultmatrix.Unit{
		// Unreadable: a directory where the file was.
		unit("flags/replay.flagd.json", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "flags/replay.flagd.json")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}),
		unit("flags/replay.flagd.json", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "flags/replay.flagd.json"), []byte(`{"flags": {"bf-7001-replay-mode": `), 0o644)
		}),
		unit("flags/guard.flagd.yaml", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "flags/guard.flagd.yaml"), []byte("flags:\n  - oops\n"), 0o644)
		}),
	})
}
