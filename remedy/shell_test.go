package remedy_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

func TestQuoteArrivesIntact(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		t.Run(name, func(t *testing.T) {
			line := remedy.Command([]string{"kubectl", "delete", "job"}, []string{remedy.Flag("--namespace", name)}, name)
			remedytest.ShSyntax(t, line)
			calls := remedytest.RunShell(t, line)
			if len(calls) != 1 {
				t.Fatalf("calls = %+v", calls)
			}
			want := []string{"delete", "job", "--namespace=" + name}
			if strings.HasPrefix(name, "-") {
				want = append(want, "--")
			}
			want = append(want, name)
			if !slices.Equal(calls[0].Args, want) {
				t.Errorf("args = %q, want %q", calls[0].Args, want)
			}
		})
	}
}

func TestCommentKeepsEveryLineCommented(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		script := remedy.Comment(remedy.Command([]string{"kubectl", "delete", "job"}, nil, name))
		if calls := remedytest.RunShell(t, script); len(calls) != 0 {
			t.Errorf("%q: a commented-out command ran: %+v", name, calls)
		}
	}
}

func TestPsqlBlockHereDocument(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		t.Run(name, func(t *testing.T) {
			sql := "DROP TABLE " + remedy.Qualified("s", name) + ";"
			block := remedy.PsqlBlock(name, sql)
			remedytest.ShSyntax(t, block)
			calls := remedytest.RunShell(t, block)
			if len(calls) != 1 || calls[0].Prog != "psql" {
				t.Fatalf("calls = %+v", calls)
			}
			if got := calls[0].Stdin; got != sql+"\n" {
				t.Errorf("psql read %q, want %q", got, sql+"\n")
			}
			wantDB := "PGDATABASE=" + name
			if len(calls[0].Args) == 0 || calls[0].Args[0] != wantDB {
				t.Errorf("psql args %q, want the database first as %q", calls[0].Args, wantDB)
			}
		})
	}
}

func TestHeredocDelimiterAvoidsBodyLines(t *testing.T) {
	body := "BFAUDIT_SQL\nBFAUDIT_SQL_1\nx"
	if d := remedy.HeredocDelimiter("BFAUDIT_SQL", body); d != "BFAUDIT_SQL_2" {
		t.Errorf("delimiter = %q", d)
	}
}

// An AWS command runs in its account only: with another account's
// credentials, the check fails and the command does not run.
func TestInAWSAccount(t *testing.T) {
	line := remedy.InAWSAccount("111111111111", remedy.Command([]string{"aws", "scheduler", "delete-schedule"}, []string{remedy.Flag("--name", "x")}))
	t.Setenv("BFAUDIT_TEST_AWS_ACCOUNT", "111111111111")
	if calls := remedytest.RunShell(t, line); len(calls) != 2 || calls[1].Args[0] != "scheduler" {
		t.Errorf("in its account: calls %+v", calls)
	}
	t.Setenv("BFAUDIT_TEST_AWS_ACCOUNT", "222222222222")
	if calls := remedytest.RunShell(t, "( "+line+" ) || true"); len(calls) != 1 || calls[0].Args[0] != "sts" {
		t.Errorf("in another account: calls %+v", calls)
	}
}

// What a person running the script reads when the command does not run:
// with no aws CLI or no credentials, that the account could not be told;
// with another account's credentials, which account they are.
func TestInAWSAccountSaysWhy(t *testing.T) {
	line := remedy.InAWSAccount("111111111111", "echo ran")
	for _, tt := range []struct{ aws, want string }{
		{"", "cannot tell which AWS account these credentials are (aws sts get-caller-identity failed: no aws CLI, or no credentials): run this with account 111111111111's"},
		{`aws() { echo 'Unable to locate credentials' >&2; return 255; }`, "cannot tell which AWS account"},
		{`aws() { echo 222222222222; }`, "these AWS credentials are account 222222222222's, not 111111111111's: run this with them"},
		{`aws() { echo 111111111111; }`, ""},
	} {
		cmd := exec.Command("sh", "-c", tt.aws+"\n( set -eu\n"+line+"\n)")
		cmd.Env = []string{"PATH=/nonexistent"}
		out, err := cmd.CombinedOutput()
		if tt.want == "" {
			if err != nil || !strings.Contains(string(out), "ran") {
				t.Errorf("in its account: %v %s", err, out)
			}
			continue
		}
		if err == nil || strings.Contains(string(out), "ran") || !strings.Contains(string(out), "bfaudit fix: "+tt.want) {
			t.Errorf("%q: %v\n%s", tt.aws, err, out)
		}
	}
}
