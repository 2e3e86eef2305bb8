package scheduler

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// The printed commands, run by sh with the real aws CLI against the fake
// (every request it sends checked against the service's model): the
// disabling writes the schedule back whole, disabled, and the deletion
// deletes it. Skipped where no aws CLI is installed.
func TestPrintedCommandsWithTheAWSCLI(t *testing.T) {
	cli, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("no aws CLI on PATH: install it (pip install awscli, or Debian's awscli) to run the printed commands against the fake")
	}
	f := estate(t)
	s := f.at(baseAccount, mainRegion)
	a := model.Artifact{URI: ScheduleURI("aws-schedules", baseAccount, mainRegion, "default", "bf_1234_replay_once")}
	var r remedy.Remedy
	pause(&r, &a)
	removal(&r, &a)
	for i, act := range r.Actions {
		cmd := exec.Command("sh", "-c", "set -eu\n"+act.Shell)
		cmd.Env = append(os.Environ(), smithy.CLIEnv(f.URL)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s (%s): %v\n%s\n%s", act.Name, cli, err, out, act.Shell)
		}
		if i == 0 {
			s.mu.Lock()
			if len(s.updates) != 1 {
				t.Fatalf("updates %v", s.updates)
			}
			u := s.updates[0]
			target, _ := u["Target"].(map[string]any)
			if u["State"] != "DISABLED" || u["ScheduleExpression"] != "at(2026-05-20T02:00:00)" || u["ActionAfterCompletion"] != "NONE" ||
				u["Description"] != "refund replay, fires once" || !strings.Contains(target["Input"].(string), "BF-1234") {
				t.Errorf("written back: %v", u)
			}
			s.mu.Unlock()
		}
	}
	if len(s.deleted) != 1 || s.deleted[0] != "default/bf_1234_replay_once" {
		t.Errorf("deleted %v", s.deleted)
	}
}
