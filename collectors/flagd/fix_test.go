package flagd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/fixtest"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/remedy"
)

// A flag in a flagd file is removed by editing the file, which fix never
// does: the plan prints the command, and --apply, even with delete_flag
// allowed, says no source can act on it and leaves the file as it was.
func TestFlagdFileIsPrintOnly(t *testing.T) {
	dir := t.TempDir()
	body := `{"flags": {"bf-7703-replay-mode": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}`
	fixtest.MustWrite(t, filepath.Join(dir, "flags", "replay.json"), body)
	src := &Flagd{Files: []string{"flags/replay.json"}}
	sel := correlate.MustSelector()
	if err := src.Init(collectors.Env{Source: "flags", Selector: sel, BaseDir: dir, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	instances := []collectors.Instance{fixtest.PlanSource(t, "BF-7703", true), {Name: "flags", Type: "flagd", Collector: src}}
	systems, closeAll, err := fix.Systems(instances)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = closeAll() }()
	if _, ok := systems["flags"]; ok {
		t.Fatal("a flagd source got a system to act through")
	}
	in := fixtest.Audit(t, sel, instances...)
	res := fixtest.Apply(t, in, "BF-7703", systems, fixtest.OpenStore(t), remedy.DeleteFlag)
	var found bool
	for _, r := range res {
		if r.Item.Action == nil || r.Item.Action.Name != remedy.DeleteFlag {
			continue
		}
		found = true
		if r.Status != fix.StatusFailed || !strings.Contains(r.Reason, "run the command by hand") {
			t.Errorf("delete_flag: %s %q, want failed, to be run by hand", r.Status, r.Reason)
		}
		if want := "jq --arg flag bf-7703-replay-mode 'del(.flags[$flag])' "; !strings.HasPrefix(r.Item.Action.Shell, want) {
			t.Errorf("command %q, want it to start %q", r.Item.Action.Shell, want)
		}
	}
	if !found {
		t.Fatalf("no delete_flag in the plan: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "flags", "replay.json")); string(b) != body {
		t.Errorf("the file changed: %s", b)
	}
}
