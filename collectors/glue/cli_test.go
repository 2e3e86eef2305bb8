package glue

import (
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// The printed command, run by sh with the real aws CLI against the fake
// (every request it sends checked against Glue's model), deletes the
// table. Skipped where no aws CLI is installed.
func TestPrintedCommandWithTheAWSCLI(t *testing.T) {
	cli, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("no aws CLI on PATH: install it (pip install awscli, or Debian's awscli) to run the printed command against the fake")
	}
	f := estate(t)
	var r remedy.Remedy
	removal(&r, &model.Artifact{URI: TableURI("aws-catalog", baseAccount, mainRegion, "analytics", "refunds_bf_1234_tmp")})
	cmd := exec.Command("sh", "-c", "set -eu\n"+r.Actions[0].Shell)
	cmd.Env = append(os.Environ(), smithy.CLIEnv(f.URL)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s\n%s", cli, err, out, r.Actions[0].Shell)
	}
	if d := f.catalog(baseAccount, mainRegion).deleted; !slices.Equal(d, []string{"analytics.refunds_bf_1234_tmp"}) {
		t.Errorf("deleted %v", d)
	}
}

// The printed revocation, run by sh with the real aws CLI against the
// fake (every request it sends checked against Lake Formation's model),
// takes the grant away: its JSON arguments are what the CLI reads.
func TestPrintedRevocationWithTheAWSCLI(t *testing.T) {
	cli, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("no aws CLI on PATH: install it (pip install awscli, or Debian's awscli) to run the printed command against the fake")
	}
	f := newFakeGlue(t)
	l := f.lake(baseAccount, mainRegion)
	cols := onCols("analytics", "refunds_bf_1234_tmp", map[string]any{"ExcludedColumnNames": []string{"card"}})
	l.grant(analyst, cols, []string{"SELECT"}, "SELECT")
	p, ok := ParsePermission(analystGrant)
	if !ok {
		t.Fatal(analystGrant)
	}
	var r remedy.Remedy
	removal(&r, &model.Artifact{URI: PermissionURI("aws-catalog", p), Attributes: model.Attrs(AttrPermissions, "SELECT", AttrGrantable, "SELECT")})
	cmd := exec.Command("sh", "-c", "set -eu\n"+r.Actions[0].Shell)
	cmd.Env = append(os.Environ(), smithy.CLIEnv(f.URL)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s\n%s", cli, err, out, r.Actions[0].Shell)
	}
	if len(l.revoked) != 1 || len(l.grants) != 0 {
		t.Errorf("revoked %v, left %v", l.revoked, l.grants)
	}
}
