package glue

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// The command, run under sh with aws recorded: every hostile name reaches
// aws as one argument, intact, with the account as the catalog.
func TestCommandUnderSh(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		a := model.Artifact{URI: TableURI("src", roleAccount, mainRegion, name+"_db", name), Attributes: model.Attrs(AttrLocation, "s3://b/tmp/bf-1234/")}
		var r remedy.Remedy
		removal(&r, &a)
		if len(r.Actions) != 1 {
			t.Fatalf("%q: actions %+v", name, r.Actions)
		}
		act := r.Actions[0]
		if act.Name != remedy.DropTable || !act.Resolves || act.Step != model.StepRetired || remedy.Reversible(act.Name) {
			t.Errorf("%q: action %+v", name, act)
		}
		calls := remedytest.RunShell(t, act.Shell)
		want := []string{"glue", "delete-table", "--region=eu-west-1", "--catalog-id=222222222222", "--database-name=" + name + "_db", "--name=" + name}
		if len(calls) != 1 || calls[0].Prog != "aws" || !slices.Equal(calls[0].Args, want) {
			t.Errorf("%q: calls %+v, want aws %q", name, calls, want)
		}
		if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "s3://b/tmp/bf-1234/") {
			t.Errorf("%q: notes %q, want the data left in place named", name, r.Notes)
		}
	}
}

// From a finding alone (a report holds no artifacts), the URI gives the
// kind and the command; a view has no data to leave behind.
func TestFromTheURIAlone(t *testing.T) {
	f := model.Finding{RuleID: "BF005", BackfillID: "BF-1234", ArtifactURI: "glue://aws-catalog/111111111111/eu-west-1/analytics/refunds_bf_1234_tmp"}
	a := remedy.InferArtifact(f)
	if a == nil || a.Kind != model.KindTable || a.Name != "analytics.refunds_bf_1234_tmp" {
		t.Fatalf("inferred %+v", a)
	}
	r, ok := remedy.BuildWith(remedy.Remove(model.StepRetired), f, remedy.Facts{Artifact: a})
	want := "aws glue delete-table --region=eu-west-1 --catalog-id=111111111111 --database-name=analytics --name=refunds_bf_1234_tmp"
	if !ok || len(r.Actions) != 1 || r.Actions[0].Shell != want {
		t.Errorf("remedy %+v, want %s", r.Actions, want)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "its location") {
		t.Errorf("notes %q", r.Notes)
	}
	view := model.Artifact{URI: f.ArtifactURI, Attributes: model.Attrs(AttrTableType, "VIRTUAL_VIEW")}
	var rv remedy.Remedy
	removal(&rv, &view)
	if len(rv.Notes) != 0 {
		t.Errorf("a view's notes %q", rv.Notes)
	}
}

// hostilePermissions are permissions on each kind of resource, every name
// in them hostile.
func hostilePermissions(name string) []Permission {
	principal := "arn:aws:iam::222222222222:role/" + name
	res := []Resource{
		{Kind: onDatabase, Database: name},
		{Kind: onTable, Database: name + "_db", Table: name},
		{Kind: onTables, Database: name},
		{Kind: onColumns, Database: name + "_db", Table: name, Columns: allColumns},
		{Kind: onColumns, Database: name + "_db", Table: name, Columns: allColumnsBut, Names: columnSet([]string{name, "card"})},
		{Kind: onColumns, Database: name + "_db", Table: name, Columns: onlyColumns, Names: columnSet([]string{"amount", name})},
		{Kind: onLocation, Location: "arn:aws:s3:::acme/tmp/" + name + "/"},
	}
	var out []Permission
	for _, r := range res {
		r.Catalog = roleAccount
		out = append(out, Permission{Account: roleAccount, Region: mainRegion, Principal: principal, Resource: r})
	}
	return out
}

// The revocation, run under sh with aws recorded: every hostile name
// reaches aws intact inside its JSON argument, with exactly the
// permissions, grant option and condition the audit saw.
func TestRevokeUnderSh(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		for _, p := range hostilePermissions(name) {
			a := model.Artifact{URI: PermissionURI("src", p), Kind: model.KindGrant,
				Attributes: model.Attrs(AttrPermissions, "ALTER,SELECT", AttrGrantable, "SELECT", AttrLFCondition, "context.name == '"+name+"'")}
			var r remedy.Remedy
			removal(&r, &a)
			if len(r.Actions) != 1 {
				t.Fatalf("%q %s: actions %+v", name, p.Kind, r.Actions)
			}
			act := r.Actions[0]
			if act.Name != remedy.RevokeGrant || !act.Resolves || act.Step != model.StepAccessRevoked || remedy.Reversible(act.Name) {
				t.Errorf("%q: action %+v", name, act)
			}
			calls := remedytest.RunShell(t, act.Shell)
			if len(calls) != 1 || calls[0].Prog != "aws" || len(calls[0].Args) != 9 {
				t.Fatalf("%q %s: calls %+v", name, p.Kind, calls)
			}
			args := calls[0].Args
			if !slices.Equal(args[:4], []string{"lakeformation", "revoke-permissions", "--region=eu-west-1", "--catalog-id=222222222222"}) {
				t.Errorf("%q: %q", name, args[:4])
			}
			var principal struct{ DataLakePrincipalIdentifier string }
			var perms, grantable []string
			var cond struct{ Expression string }
			for _, arg := range []struct {
				flag string
				into any
			}{{"--principal=", &principal}, {"--permissions=", &perms}, {"--permissions-with-grant-option=", &grantable}, {"--condition=", &cond}} {
				i := slices.IndexFunc(args, func(s string) bool { return strings.HasPrefix(s, arg.flag) })
				if i < 0 || json.Unmarshal([]byte(strings.TrimPrefix(args[i], arg.flag)), arg.into) != nil {
					t.Fatalf("%q: no %s in %q", name, arg.flag, args)
				}
			}
			if principal.DataLakePrincipalIdentifier != p.Principal || !slices.Equal(perms, []string{"ALTER", "SELECT"}) ||
				!slices.Equal(grantable, []string{"SELECT"}) || cond.Expression != "context.name == '"+name+"'" {
				t.Errorf("%q: read back %+v %v %v %+v", name, principal, perms, grantable, cond)
			}
			i := slices.IndexFunc(args, func(s string) bool { return strings.HasPrefix(s, "--resource=") })
			if got := strings.TrimPrefix(args[i], "--resource="); got != p.cliJSON() {
				t.Errorf("%q: resource %s, want %s", name, got, p.cliJSON())
			}
		}
	}
}

// The resource argument is the API's structure, as the aws CLI takes it.
func TestResourceAsTheCLITakesIt(t *testing.T) {
	for _, c := range []struct {
		r    Resource
		want string
	}{
		{Resource{Catalog: "1", Kind: onDatabase, Database: "scratch_bf_1234"}, `{"Database":{"CatalogId":"1","Name":"scratch_bf_1234"}}`},
		{Resource{Catalog: "1", Kind: onTable, Database: "a", Table: "t"}, `{"Table":{"CatalogId":"1","DatabaseName":"a","Name":"t"}}`},
		{Resource{Catalog: "1", Kind: onTables, Database: "a"}, `{"Table":{"CatalogId":"1","DatabaseName":"a","TableWildcard":{}}}`},
		{Resource{Catalog: "1", Kind: onColumns, Database: "a", Table: "t", Columns: allColumns}, `{"TableWithColumns":{"CatalogId":"1","ColumnWildcard":{},"DatabaseName":"a","Name":"t"}}`},
		{Resource{Catalog: "1", Kind: onColumns, Database: "a", Table: "t", Columns: allColumnsBut, Names: []string{"card"}},
			`{"TableWithColumns":{"CatalogId":"1","ColumnWildcard":{"ExcludedColumnNames":["card"]},"DatabaseName":"a","Name":"t"}}`},
		{Resource{Catalog: "1", Kind: onColumns, Database: "a", Table: "t", Columns: onlyColumns, Names: []string{"x", "y"}},
			`{"TableWithColumns":{"CatalogId":"1","ColumnNames":["x","y"],"DatabaseName":"a","Name":"t"}}`},
		{Resource{Catalog: "1", Kind: onLocation, Location: "arn:aws:s3:::b/tmp/"}, `{"DataLocation":{"CatalogId":"1","ResourceArn":"arn:aws:s3:::b/tmp/"}}`},
	} {
		if got := c.r.cliJSON(); got != c.want {
			t.Errorf("%s: %s, want %s", c.r, got, c.want)
		}
	}
}

// From a finding alone (a report holds no artifacts), the URI gives the
// grant's principal and resource, not what it holds: a note says how to
// revoke it instead of a command that would guess.
func TestGrantFromTheURIAlone(t *testing.T) {
	f := model.Finding{RuleID: "BF003", BackfillID: "BF-1234",
		ArtifactURI: "glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fbf-1234-replay/111111111111/table/analytics/orders"}
	a := remedy.InferArtifact(f)
	if a == nil || a.Kind != model.KindGrant || a.Attr(model.AttrPrincipal) != replayRole || a.Attr(AttrResource) != "table analytics.orders" {
		t.Fatalf("inferred %+v", a)
	}
	r, ok := remedy.BuildWith(remedy.Remove(model.StepAccessRevoked), f, remedy.Facts{Artifact: a})
	if !ok || len(r.Actions) != 0 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "fresh audit") {
		t.Errorf("remedy %+v %q", r.Actions, r.Notes)
	}
}
