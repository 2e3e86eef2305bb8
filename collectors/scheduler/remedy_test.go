package scheduler

import (
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// The commands, run under sh with aws recorded, in the schedule's account:
// every hostile name reaches aws as one argument, intact; the disabling
// reads the schedule and hands it, disabled, to update-schedule.
func TestCommandsUnderSh(t *testing.T) {
	t.Setenv("BFAUDIT_TEST_AWS_ACCOUNT", roleAccount)
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		a := model.Artifact{URI: ScheduleURI("src", roleAccount, mainRegion, name+"-group", name), Kind: model.KindSchedulerJob, State: model.StateEnabled}
		var r remedy.Remedy
		pause(&r, &a)
		removal(&r, &a)
		if len(r.Actions) != 2 || r.Actions[0].Name != remedy.PauseJob || r.Actions[1].Name != remedy.DeleteJob ||
			!remedy.Reversible(r.Actions[0].Name) || remedy.Reversible(r.Actions[1].Name) || r.Actions[1].Step != model.StepRetired {
			t.Fatalf("%q: actions %+v", name, r.Actions)
		}
		flags := []string{"--region=eu-west-1", "--group-name=" + name + "-group", "--name=" + name}
		want := [][]string{
			{"sts", "get-caller-identity", "--query", "Account", "--output", "text"},
			append(append([]string{"scheduler", "get-schedule"}, flags...), "--output=json", "--query="+disableQuery),
			{"scheduler", "update-schedule", "--region=eu-west-1", "--cli-input-json", ""},
			{"sts", "get-caller-identity", "--query", "Account", "--output", "text"},
			append([]string{"scheduler", "delete-schedule"}, flags...),
		}
		calls := remedytest.RunShell(t, r.Actions[0].Shell+"\n"+r.Actions[1].Shell)
		if len(calls) != len(want) {
			t.Fatalf("%q: %d calls, want %d: %+v", name, len(calls), len(want), calls)
		}
		for i, c := range calls {
			if c.Prog != "aws" || !slices.Equal(c.Args, want[i]) {
				t.Errorf("%q: call %d = %s %q, want aws %q", name, i, c.Prog, c.Args, want[i])
			}
		}
	}
}

// With another account's credentials, nothing but the check runs.
func TestCommandsRefuseAnotherAccount(t *testing.T) {
	t.Setenv("BFAUDIT_TEST_AWS_ACCOUNT", baseAccount)
	var r remedy.Remedy
	removal(&r, &model.Artifact{URI: ScheduleURI("src", roleAccount, mainRegion, "default", "bf_1234_replay")})
	calls := remedytest.RunShell(t, "( "+r.Actions[0].Shell+" ) || true")
	if len(calls) != 1 || calls[0].Args[0] != "sts" {
		t.Errorf("calls %+v, want the account check alone", calls)
	}
}

// From a finding alone (a report holds no artifacts), the URI gives the
// kind and the commands.
func TestFromTheURIAlone(t *testing.T) {
	f := model.Finding{RuleID: "BF002", BackfillID: "BF-1234", ArtifactURI: "scheduler://aws-schedules/111111111111/eu-west-1/default/bf_1234_replay"}
	a := remedy.InferArtifact(f)
	if a == nil || a.Kind != model.KindSchedulerJob || a.Name != "default/bf_1234_replay" {
		t.Fatalf("inferred %+v", a)
	}
	r, ok := remedy.BuildWith(remedy.Remove(model.StepRetired), f, remedy.Facts{Artifact: a})
	if !ok || len(r.Actions) != 1 || !strings.HasSuffix(r.Actions[0].Shell,
		"\naws scheduler delete-schedule --region=eu-west-1 --group-name=default --name=bf_1234_replay") ||
		!strings.Contains(r.Actions[0].Shell, "= 111111111111 ]") {
		t.Errorf("remedy %+v", r.Actions)
	}
}
