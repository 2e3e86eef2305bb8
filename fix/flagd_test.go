package fix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/flagd"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// A flag in a flagd file is removed by editing the file, which fix never
// does: the plan prints the command, and --apply, even with delete_flag
// allowed, says no source can act on it and leaves the file as it was.
func TestFlagdFileIsPrintOnly(t *testing.T) {
	dir := t.TempDir()
	body := `{"flags": {"bf-7703-replay-mode": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}`
	mustWrite(t, filepath.Join(dir, "flags", "replay.json"), body)
	src := &flagd.Flagd{Files: []string{"flags/replay.json"}}
	sel := correlate.MustSelector()
	if err := src.Init(collectors.Env{Source: "flags", Selector: sel, BaseDir: dir, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	instances := []collectors.Instance{planSource(t, "BF-7703", true), {Name: "flags", Type: "flagd", Collector: src}}
	systems, closeAll, err := Systems(instances)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = closeAll() }()
	if _, ok := systems["flags"]; ok {
		t.Fatal("a flagd source got a system to act through")
	}
	in := auditOf(t, sel, instances...)
	res := applyPlan(t, in, "BF-7703", systems, openStore(t), remedy.DeleteFlag)
	var found bool
	for _, r := range res {
		if r.Item.Action == nil || r.Item.Action.Name != remedy.DeleteFlag {
			continue
		}
		found = true
		if r.Status != StatusFailed || !strings.Contains(r.Reason, "run the command by hand") {
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

// A flag of a FeatureFlag resource is not acted on: reading it again
// fails, so --apply reports it to be run by hand instead of reading the
// name as a Job's and taking "not found" for done.
func TestKubernetesFeatureFlagIsPrintOnly(t *testing.T) {
	s := &kubeSystem{}
	a := &model.Artifact{Kind: model.KindFeatureFlag, System: "kubernetes", URI: "kubernetes://c/batch/featureflags/ff#bf-1-mode"}
	_, err := s.Read(context.Background(), a, remedy.Action{Name: remedy.DeleteFlag})
	if err == nil || !strings.Contains(err.Error(), "does not act on featureflags") {
		t.Errorf("Read: %v", err)
	}
	if err := s.Act(context.Background(), a, remedy.Action{Name: remedy.DeleteFlag}); err == nil {
		t.Error("Act on a FeatureFlag's flag did not refuse")
	}
}
