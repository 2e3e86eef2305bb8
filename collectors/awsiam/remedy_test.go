package awsiam

import (
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// remove builds the removal commands of an artifact.
func remove(a *model.Artifact) remedy.Remedy {
	r, _ := remedy.BuildWith(remedy.Remove(model.StepAccessRevoked), model.Finding{}, remedy.Facts{Artifact: a})
	return r
}

// Every command runs under sh with the aws CLI recorded: each first asks
// which account the credentials are, then changes only that one's, with
// every name arriving as it is, whatever it holds.
func TestCommandsKeepNamesIntact(t *testing.T) {
	const account = "111111111111"
	t.Setenv("BFAUDIT_TEST_AWS_ACCOUNT", account)
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		policyARN := "arn:aws:iam::" + account + ":policy/" + name
		cases := []struct {
			a     model.Artifact
			wants [][]string // the aws iam calls, after each account check
		}{
			{model.Artifact{Kind: model.KindCredential, URI: KeyURI("s", account, name, "AKIA"+name)}, [][]string{
				{"iam", "update-access-key", "--user-name=" + name, "--access-key-id=AKIA" + name, "--status=Inactive"},
				{"iam", "delete-access-key", "--user-name=" + name, "--access-key-id=AKIA" + name}}},
			{model.Artifact{Kind: model.KindGrant, URI: AttachedURI("s", account, kindRole, name, policyARN)}, [][]string{
				{"iam", "detach-role-policy", "--role-name=" + name, "--policy-arn=" + policyARN}}},
			{model.Artifact{Kind: model.KindGrant, URI: InlineURI("s", account, kindGroup, name, name)}, [][]string{
				{"iam", "delete-group-policy", "--group-name=" + name, "--policy-name=" + name}}},
			{model.Artifact{Kind: model.KindGrant, URI: StatementURI("s", account, kindUser, name, name, "BF1234"),
				Attributes: model.Attrs(AttrPolicyAfter, `{"Statement":[{"Sid":"`+name+`"}]}`, AttrStatementsLeft, "1")}, [][]string{
				{"iam", "put-user-policy", "--user-name=" + name, "--policy-name=" + name, `--policy-document={"Statement":[{"Sid":"` + name + `"}]}`}}},
			{model.Artifact{Kind: model.KindGrant, URI: StatementURI("s", account, kindRole, name, name, "BF1234"),
				Attributes: model.Attrs(AttrPolicyAfter, `{"Statement":[]}`, AttrStatementsLeft, "0")}, [][]string{
				{"iam", "delete-role-policy", "--role-name=" + name, "--policy-name=" + name}}},
		}
		for _, tt := range cases {
			r := remove(&tt.a)
			if len(r.Actions) != len(tt.wants) {
				t.Fatalf("%s: %d actions, want %d: %+v", tt.a.URI, len(r.Actions), len(tt.wants), r)
			}
			for i, act := range r.Actions {
				calls := remedytest.RunShell(t, act.Shell)
				check := []string{"sts", "get-caller-identity", "--query", "Account", "--output", "text"}
				if len(calls) != 2 || calls[0].Prog != "aws" || !slices.Equal(calls[0].Args, check) ||
					calls[1].Prog != "aws" || !slices.Equal(calls[1].Args, tt.wants[i]) {
					t.Errorf("%s: %s ran %+v, want the account check then aws %q", tt.a.URI, act.Name, calls, tt.wants[i])
				}
			}
		}
	}
}

// With credentials of another account, the check fails the command
// before it changes anything, saying why.
func TestCommandsRefuseAnotherAccount(t *testing.T) {
	t.Setenv("BFAUDIT_TEST_AWS_ACCOUNT", "222222222222")
	r := remove(&model.Artifact{Kind: model.KindGrant, URI: InlineURI("s", "111111111111", kindRole, "bf-1234-replay", "p")})
	calls := remedytest.RunShell(t, "( "+r.Actions[0].Shell+" ) 2>err || true; cat err >&2")
	if len(calls) != 1 || calls[0].Args[0] != "sts" {
		t.Errorf("with another account's credentials the command ran %+v", calls)
	}
}

// The actions and their steps: a key is deactivated with the access
// revoked (reversible) and deleted when the backfill is retired; a
// statement shared with another backfill, or read back from a report
// without the policy it leaves, gets a note and no command.
func TestActions(t *testing.T) {
	key := remove(&model.Artifact{Kind: model.KindCredential, URI: KeyURI("s", "111111111111", "u", "AKIAX")})
	if len(key.Actions) != 2 || key.Actions[0].Name != remedy.DisableKey || key.Actions[0].Step != model.StepAccessRevoked ||
		key.Actions[1].Name != remedy.DeleteKey || key.Actions[1].Step != model.StepRetired || !remedy.Reversible(remedy.DisableKey) || remedy.Reversible(remedy.DeleteKey) {
		t.Errorf("key actions %+v", key.Actions)
	}
	for _, attrs := range []*model.Tags{
		model.Attrs(AttrPolicyAfter, `{"Statement":[]}`, AttrStatementsLeft, "1", AttrSharedWith, "BF-77"),
		nil, // a finding read back from a report
	} {
		r := remove(&model.Artifact{Kind: model.KindGrant, URI: StatementURI("s", "111111111111", kindRole, "etl", "p", "BF1234"), Attributes: attrs})
		if len(r.Actions) != 0 || len(r.Notes) != 1 {
			t.Errorf("statement with %v: actions %+v, notes %q", attrs, r.Actions, r.Notes)
		}
	}
}

// A finding alone (a report holds no artifacts) still names its kind and
// principal, and gets its commands.
func TestInferFromTheURI(t *testing.T) {
	for uri, kind := range map[string]model.Kind{
		KeyURI("s", "111111111111", "bf-1234-runner", "AKIAX"):                                                      model.KindCredential,
		AttachedURI("s", "111111111111", kindRole, "bf-1234-replay", "arn:aws:iam::aws:policy/AdministratorAccess"): model.KindGrant,
		InlineURI("s", "111111111111", kindUser, "bf-1234-runner", "extra"):                                         model.KindGrant,
	} {
		a := &model.Artifact{URI: uri}
		infer(a)
		if a.Kind != kind || !strings.HasPrefix(a.Attr(model.AttrPrincipal), "arn:aws:iam::111111111111:") {
			t.Errorf("%s inferred as %s, principal %q", uri, a.Kind, a.Attr(model.AttrPrincipal))
		}
		if r, ok := remedy.For(model.Finding{RuleID: "BF003", ArtifactURI: uri}, nil); kind == model.KindGrant && (!ok || len(r.Actions) != 1) {
			t.Errorf("%s: the remedy of a finding alone is %+v (%v)", uri, r, ok)
		}
	}
}
