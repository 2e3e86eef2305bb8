package glue

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// fixEstate is BF-1234's scratch tables in two accounts, and a production
// table, audited through the source "aws-catalog".
func fixEstate(t *testing.T) (*fakeGlue, *Collector, fix.Inputs) {
	t.Helper()
	f := newFakeGlue(t)
	f.catalog(baseAccount, mainRegion).addDatabase(map[string]any{"Name": "analytics"},
		table("refunds_bf_1234_tmp", "s3://acme-athena/tmp/bf-1234/", nil), table("orders", "s3://acme-lake/orders/", nil))
	f.catalog(roleAccount, mainRegion).addDatabase(map[string]any{"Name": "finance"}, table("bf_1234_refunds", "", nil))
	c := newOn(t, f.URL, withAccounts)
	in := fixtest.Audit(t, correlate.MustSelector(), fixtest.PlanSource(t, "BF-1234", true),
		collectors.Instance{Name: "aws-catalog", Type: "glue", Collector: c})
	return f, c, in
}

// Deleting a table is not reversible: without fix.allow it is not taken;
// with it, each scratch table is deleted in its own account (the second
// through its role), recorded, and nothing else is touched.
func TestFixDeletesTheTables(t *testing.T) {
	f, c, in := fixEstate(t)
	open := fixtest.Open(in, "BF-1234")
	for _, uri := range []string{"glue://aws-catalog/111111111111/eu-west-1/analytics/refunds_bf_1234_tmp", "glue://aws-catalog/222222222222/eu-west-1/finance/bf_1234_refunds"} {
		if !open["BF005 "+uri] {
			t.Fatalf("no BF005 on %s: %v", uri, open)
		}
	}
	actor, err := remedy.SystemNamed("glue").Acts(c)
	if err != nil {
		t.Fatal(err)
	}
	systems := map[string]remedy.Actor{"aws-catalog": actor}
	store := fixtest.OpenStore(t)
	if s := fixtest.StatusOf(fixtest.Apply(t, in, "BF-1234", systems, store), remedy.DropTable); s != fix.StatusNotAllowed {
		t.Fatalf("drop_table without fix.allow: %s", s)
	}
	results := fixtest.Apply(t, in, "BF-1234", systems, store, remedy.DropTable)
	for _, r := range results {
		if r.Item.Action != nil && r.Item.Action.Name == remedy.DropTable && r.Status != fix.StatusApplied {
			t.Errorf("%s: %s %s", r.Item.ArtifactURI, r.Status, r.Reason)
		}
	}
	if d := f.catalog(baseAccount, mainRegion).deleted; !slices.Equal(d, []string{"analytics.refunds_bf_1234_tmp"}) {
		t.Errorf("deleted in the caller's account: %v", d)
	}
	if d := f.catalog(roleAccount, mainRegion).deleted; !slices.Equal(d, []string{"finance.bf_1234_refunds"}) {
		t.Errorf("deleted in the role's account: %v", d)
	}
	acts, err := store.FixActions(context.Background(), "BF-1234")
	if err != nil {
		t.Fatal(err)
	}
	applied := 0
	for _, a := range acts {
		if a.Action == remedy.DropTable && a.Result == fix.StatusApplied {
			applied++
		}
	}
	if applied != 2 {
		t.Errorf("%d deletions recorded as applied, want 2: %+v", applied, acts)
	}
	// Applied again: each table reads gone, and nothing is deleted twice.
	for _, r := range fixtest.Apply(t, in, "BF-1234", systems, store, remedy.DropTable) {
		if r.Item.Action != nil && r.Item.Action.Name == remedy.DropTable && r.Status != fix.StatusSkipped {
			t.Errorf("again: %s: %s %s", r.Item.ArtifactURI, r.Status, r.Reason)
		}
	}
}

// A table written to since the audit (a new version) is left alone.
func TestFixLeavesAChangedTable(t *testing.T) {
	f, c, in := fixEstate(t)
	cat := f.catalog(baseAccount, mainRegion)
	cat.mu.Lock()
	for _, tb := range cat.tables["analytics"] {
		if tb["Name"] == "refunds_bf_1234_tmp" {
			tb["VersionId"], tb["UpdateTime"] = "4", time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
		}
	}
	cat.mu.Unlock()
	actor, _ := remedy.SystemNamed("glue").Acts(c)
	results := fixtest.Apply(t, in, "BF-1234", map[string]remedy.Actor{"aws-catalog": actor}, fixtest.OpenStore(t), remedy.DropTable)
	for _, r := range results {
		if r.Item.ArtifactURI == "glue://aws-catalog/111111111111/eu-west-1/analytics/refunds_bf_1234_tmp" && r.Status != fix.StatusSkipped {
			t.Errorf("a changed table: %s %s", r.Status, r.Reason)
		}
	}
	if len(cat.deleted) != 0 {
		t.Errorf("deleted %v", cat.deleted)
	}
}

// grantEstate is BF-1234's replay role's Lake Formation permission on a
// production table and an analyst's on its scratch table's columns (with
// the grant option), audited through the source "aws-catalog".
func grantEstate(t *testing.T) (*fakeGlue, *Collector, fix.Inputs) {
	t.Helper()
	f := newFakeGlue(t)
	f.catalog(baseAccount, mainRegion).addDatabase(map[string]any{"Name": "analytics"},
		table("refunds_bf_1234_tmp", "s3://acme-athena/tmp/bf-1234/", nil), table("orders", "s3://acme-lake/orders/", nil))
	l := f.lake(baseAccount, mainRegion)
	l.grant(replayRole, onTbl("analytics", "orders"), []string{"SELECT", "ALTER"})
	l.grant(analyst, onCols("analytics", "refunds_bf_1234_tmp", map[string]any{"ExcludedColumnNames": []string{"card"}}), []string{"SELECT"}, "SELECT")
	l.grant(analyst, onTbl("analytics", "orders"), []string{"SELECT"})
	c := newOn(t, f.URL)
	in := fixtest.Audit(t, correlate.MustSelector(), fixtest.PlanSource(t, "BF-1234", true),
		collectors.Instance{Name: "aws-catalog", Type: "glue", Collector: c})
	return f, c, in
}

const (
	replayGrant  = "glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fbf-1234-replay/111111111111/table/analytics/orders"
	analystGrant = "glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fanalyst/111111111111/columns/analytics/refunds_bf_1234_tmp/all-but/card"
)

// Revoking a grant cannot be undone: without fix.allow it is not taken;
// with it, each grant of the backfill is revoked as the audit saw it, with
// its grant option, recorded; the analyst's production grant is not
// touched, and applied again nothing is revoked twice.
func TestFixRevokesTheGrants(t *testing.T) {
	f, c, in := grantEstate(t)
	open := fixtest.Open(in, "BF-1234")
	for _, uri := range []string{replayGrant, analystGrant} {
		if !open["BF003 "+uri] {
			t.Fatalf("no BF003 on %s: %v", uri, open)
		}
	}
	actor, err := remedy.SystemNamed("glue").Acts(c)
	if err != nil {
		t.Fatal(err)
	}
	systems := map[string]remedy.Actor{"aws-catalog": actor}
	store := fixtest.OpenStore(t)
	if s := fixtest.StatusOf(fixtest.Apply(t, in, "BF-1234", systems, store), remedy.RevokeGrant); s != fix.StatusNotAllowed {
		t.Fatalf("revoke_grant without fix.allow: %s", s)
	}
	for _, r := range fixtest.Apply(t, in, "BF-1234", systems, store, remedy.RevokeGrant) {
		if r.Item.Action != nil && r.Item.Action.Name == remedy.RevokeGrant && r.Status != fix.StatusApplied {
			t.Errorf("%s: %s %s", r.Item.ArtifactURI, r.Status, r.Reason)
		}
	}
	l := f.lake(baseAccount, mainRegion)
	want := []string{
		replayRole + ` {"Table":{"CatalogId":"111111111111","DatabaseName":"analytics","Name":"orders"}} [ALTER SELECT]`,
		analyst + ` {"TableWithColumns":{"CatalogId":"111111111111","ColumnWildcard":{"ExcludedColumnNames":["card"]},"DatabaseName":"analytics","Name":"refunds_bf_1234_tmp"}} [SELECT]`,
	}
	slices.Sort(l.revoked)
	slices.Sort(want)
	if !slices.Equal(l.revoked, want) {
		t.Errorf("revoked\n%s\nwant\n%s", strings.Join(l.revoked, "\n"), strings.Join(want, "\n"))
	}
	if len(l.grants) != 1 || l.grants[0]["Principal"].(map[string]any)["DataLakePrincipalIdentifier"] != analyst {
		t.Errorf("left %v, want the analyst's production grant", l.grants)
	}
	acts, err := store.FixActions(context.Background(), "BF-1234")
	if err != nil {
		t.Fatal(err)
	}
	applied := 0
	for _, a := range acts {
		if a.Action == remedy.RevokeGrant && a.Result == fix.StatusApplied {
			applied++
		}
	}
	if applied != 2 {
		t.Errorf("%d revocations recorded as applied, want 2: %+v", applied, acts)
	}
	for _, r := range fixtest.Apply(t, in, "BF-1234", systems, store, remedy.RevokeGrant) {
		if r.Item.Action != nil && r.Item.Action.Name == remedy.RevokeGrant && r.Status != fix.StatusSkipped {
			t.Errorf("again: %s: %s %s", r.Item.ArtifactURI, r.Status, r.Reason)
		}
	}
	if len(l.revoked) != 2 {
		t.Errorf("revoked again: %v", l.revoked)
	}
}

// A grant that gained a permission since the audit is left alone: what
// was granted since may be someone else's, and revoking what the audit saw
// would leave it half taken.
func TestFixLeavesAChangedGrant(t *testing.T) {
	f, c, in := grantEstate(t)
	l := f.lake(baseAccount, mainRegion)
	l.grant(replayRole, onTbl("analytics", "orders"), []string{"DELETE"})
	actor, _ := remedy.SystemNamed("glue").Acts(c)
	for _, r := range fixtest.Apply(t, in, "BF-1234", map[string]remedy.Actor{"aws-catalog": actor}, fixtest.OpenStore(t), remedy.RevokeGrant) {
		if r.Item.ArtifactURI == replayGrant && r.Status != fix.StatusSkipped {
			t.Errorf("a changed grant: %s %s", r.Status, r.Reason)
		}
	}
	for _, r := range l.revoked {
		if strings.HasPrefix(r, replayRole) {
			t.Errorf("revoked %s", r)
		}
	}
}
