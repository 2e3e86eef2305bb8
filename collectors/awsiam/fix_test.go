package awsiam

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// auditFix audits the fake's account with BF-1234's plan (and its
// decision record, archived or not), as bfaudit fix does, and returns the
// inputs and the actors of the plan.
func auditFix(t *testing.T, fake *fakeAWS, archived bool) (fix.Inputs, map[string]remedy.Actor) {
	t.Helper()
	c := collectorOn(t, fake.URL, "aws-iam", fixtest.Now, nil)
	in := fixtest.Audit(t, correlate.MustSelector(), collectors.Instance{Name: "aws-iam", Type: "awsiam", Collector: c},
		fixtest.PlanSource(t, "BF-1234", archived))
	acts, err := remedy.SystemNamed("awsiam").Acts(c)
	if err != nil || acts == nil {
		t.Fatalf("the awsiam system acts through %v (%v)", acts, err)
	}
	return in, map[string]remedy.Actor{"aws-iam": acts}
}

func statusesOf(results []fix.Result) map[string]string {
	out := map[string]string{}
	for _, r := range results {
		if r.Item.Action != nil {
			out[r.Item.Action.Name+" "+r.Item.ArtifactURI] = r.Status
		}
	}
	return out
}

// Without fix.allow only the reversible deactivation runs (the key's
// deletion, a step later, waits for the grants to go); with it, every
// grant goes and the key, deactivated by then, is deleted, each through
// the SDK against the model; the next audit finds nothing of BF-1234's
// access.
func TestFixRevokesTheBackfillsAccess(t *testing.T) {
	acct := bf1234(callerAccount)
	fake := newFakeAWS(t, acct)
	in, actors := auditFix(t, fake, true)
	res := fixtest.Apply(t, in, "BF-1234", actors, fixtest.OpenStore(t))
	for action, want := range map[string]string{remedy.DisableKey: fix.StatusApplied, remedy.RevokeGrant: fix.StatusNotAllowed, remedy.DeleteKey: fix.StatusWaits} {
		if got := fixtest.StatusOf(res, action); got != want {
			t.Errorf("%s: %s, want %s", action, got, want)
		}
	}
	runner := acct.find(kindUser, "bf-1234-runner")
	if runner.keys[0].status != "Inactive" {
		t.Fatalf("the active key is %s after the fix", runner.keys[0].status)
	}

	res = fixtest.Apply(t, in, "BF-1234", actors, fixtest.OpenStore(t), remedy.DeleteKey, remedy.RevokeGrant)
	for item, status := range statusesOf(res) {
		if status != fix.StatusApplied {
			t.Errorf("%s: %s", item, status)
		}
	}
	// The key deactivated before is still the key to delete; the one
	// deactivated long ago is only missing from the plan (BF014).
	if len(runner.keys) != 1 || runner.keys[0].id != inactiveKey {
		t.Errorf("keys left: %+v", runner.keys)
	}
	replay := acct.find(kindRole, "bf-1234-replay")
	if len(replay.attached) != 0 || len(replay.inline) != 1 { // the Deny-only guard grants nothing and stays
		t.Errorf("bf-1234-replay keeps %v and %d inline policies", replay.attached, len(replay.inline))
	}
	var prod struct{ Statement []struct{ Sid string } }
	if err := json.Unmarshal([]byte(acct.find(kindRole, "etl-prod").inline["prod-access"]), &prod); err != nil ||
		len(prod.Statement) != 1 || prod.Statement[0].Sid != "ProdRead" {
		t.Errorf("etl-prod's policy after the fix: %s (%v)", acct.find(kindRole, "etl-prod").inline["prod-access"], err)
	}
	if len(acct.find(kindRole, "etl-prod").attached) != 1 || len(acct.find(kindGroup, "bf-1234-writers").inline) != 0 {
		t.Errorf("etl-prod lost its own policy, or the group kept its own")
	}

	again, _ := auditFix(t, fake, true)
	for key := range fixtest.Open(again, "BF-1234") {
		if strings.Contains(key, "awsiam://") && !strings.HasPrefix(key, "BF014 ") {
			t.Errorf("still open after the fix: %s", key)
		}
	}
}

// A statement or a key changed between the audit and the fix is left
// alone: a new date on the statement, a key made anew under the same id.
func TestFixLeavesWhatChangedAlone(t *testing.T) {
	acct := bf1234(callerAccount)
	fake := newFakeAWS(t, acct)
	in, actors := auditFix(t, fake, true)
	prod := acct.find(kindRole, "etl-prod")
	prod.inline["prod-access"] = strings.Replace(prod.inline["prod-access"], "2026-12-31", "2027-03-31", 1)
	acct.find(kindUser, "bf-1234-runner").keys[0].created = fixtest.Now

	res := statusesOf(fixtest.Apply(t, in, "BF-1234", actors, fixtest.OpenStore(t), remedy.DeleteKey, remedy.RevokeGrant))
	statement := "revoke_grant " + StatementURI("aws-iam", callerAccount, kindRole, "etl-prod", "prod-access", "BF1234")
	key := "disable_key " + KeyURI("aws-iam", callerAccount, "bf-1234-runner", activeKey)
	for _, item := range []string{statement, key} {
		if res[item] != fix.StatusSkipped {
			t.Errorf("%s: %s, want skipped as changed since the audit (results %v)", item, res[item], res)
		}
	}
	if !strings.Contains(prod.inline["prod-access"], "BF1234") || acct.find(kindUser, "bf-1234-runner").keys[0].status != "Active" {
		t.Errorf("what changed was acted on anyway")
	}
}

// The printed script of BF-1234, run by sh with an aws CLI that fails to
// detach policies: each command runs on its own, so each failure is named
// and every other revocation still runs (the key's deactivation among
// them); only the key's deletion, a later step relying on this one, is
// held; the script ends saying what did not run.
func TestFixScriptGoesOnPastAFailure(t *testing.T) {
	in, _ := auditFix(t, newFakeAWS(t, bf1234(callerAccount)), true)
	p, err := fix.NewPlan(in, "BF-1234", func(remedy.Action) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var script bytes.Buffer
	if err := fix.WriteScript(&script, p); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fakeAWS := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$CALLS\"\n" +
		"case \"$1 $2\" in\n'sts get-caller-identity') echo 111111111111 ;;\n'iam detach-role-policy') echo 'An error occurred (AccessDenied)' >&2; exit 254 ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, "aws"), []byte(fakeAWS), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", script.String())
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "CALLS="+filepath.Join(dir, "calls"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Errorf("the script exited 0 though a command failed")
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	for _, want := range []string{"iam update-access-key", "iam delete-role-policy", "iam delete-group-policy", "iam put-role-policy"} {
		if !strings.Contains(string(calls), want) {
			t.Errorf("%s did not run after the failed detach; calls:\n%s\nstderr:\n%s", want, calls, stderr.String())
		}
	}
	if n := strings.Count(string(calls), "iam detach-role-policy"); n != 4 {
		t.Errorf("%d detach commands ran, want the 4 attached policies tried", n)
	}
	if strings.Contains(string(calls), "delete-access-key") {
		t.Errorf("the key was deleted though the access step did not complete")
	}
	if !strings.Contains(stderr.String(), "FAILED") || !strings.Contains(stderr.String(), "these did not") {
		t.Errorf("the script does not say what failed:\n%s", stderr.String())
	}
}
