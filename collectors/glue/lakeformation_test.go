package glue

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

const lfScope = baseAccount + "/" + mainRegion + "/lakeformation"

// The Lake Formation permissions of BF-1234, read over several pages and
// tied the way each says: its role's name (two entries merged into one
// grant), a user's path, the scratch table the catalog tied by its tag,
// the scratch database, a location's path, a table of a database whose
// tables did not read by its name; and in roleAccount through its role.
// The analyst's permission on a production table, the
// IAM_ALLOWED_PRINCIPALS default and a catalog-wide permission are read
// and not reported.
func TestCollectLakeFormationGrants(t *testing.T) {
	f := estate(t)
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fanalyst/111111111111/columns/analytics/refunds_bf_1234_tmp/all bf-1234 folder",
		"glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fanalyst/111111111111/location/arn:aws:s3:::acme-athena%2Ftmp%2Fbf-1234%2F bf-1234 path",
		"glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fanalyst/111111111111/table/broken/bf_1234_lost bf_1234 folder",
		"glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fanalyst/111111111111/tables/scratch_bf_1234 bf_1234 folder",
		"glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fbf-1234-replay/111111111111/table/analytics/orders bf-1234 name",
		"glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fetl/111111111111/database/scratch_bf_1234 bf_1234 folder",
		"glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:user%2Fbackfill%2Fbf-1234%2Floader/111111111111/location/arn:aws:s3:::acme-lake%2Forders%2F bf-1234 name",
		"glue://aws-catalog/222222222222/eu-west-1/lakeformation/arn:aws:iam::222222222222:role%2Fbf-1234-replay/222222222222/columns/finance/bf_1234_refunds/only/amount/refund_id bf-1234 name",
	}
	if got := uris(sink, model.KindGrant); !slices.Equal(got, want) {
		t.Errorf("grants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, e := range sink.Errors {
		if strings.Contains(e.Scope, "lakeformation") {
			t.Errorf("error at %s: %s", e.Scope, e.Error)
		}
	}
	g := sink.Artifact("glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fbf-1234-replay/111111111111/table/analytics/orders")
	if g.Scope != lfScope || g.State != model.StateActive || !g.ModifiedAt.Time().Equal(updated) || !g.ExpiresAt.IsZero() ||
		g.Name != "ALTER,DROP,INSERT,SELECT on table analytics.orders to "+replayRole {
		t.Errorf("the replay role's grant %+v", g)
	}
	for k, v := range map[string]string{
		model.AttrPrincipal: replayRole, model.AttrRole: "ALTER,DROP,INSERT,SELECT on table analytics.orders",
		AttrPermissions: "ALTER,DROP,INSERT,SELECT", model.AttrTimeBound: "false",
		AttrResource: "table analytics.orders", AttrDatabase: "analytics", AttrGrantable: "",
		AttrLastUpdatedBy: "arn:aws:iam::111111111111:role/lake-admin",
	} {
		if got := g.Attr(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if e := sink.Artifact("glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fetl/111111111111/database/scratch_bf_1234"); e.Attr(AttrGrantable) != "CREATE_TABLE" {
		t.Errorf("the grant option: %v", e.Attributes)
	}
	if n, partial := sink.Read(lfScope, "permissions"); n != 11 || partial != 0 {
		t.Errorf("permissions read at %s: %d (%d in part), want 11 over six pages", lfScope, n, partial)
	}
	if n := calls(f.Calls(baseAccount, mainRegion), "ListPermissions"); n != 6 {
		t.Errorf("%d ListPermissions calls, want 6 (pages of 2)", n)
	}
}

func calls(ops []string, op string) int {
	n := 0
	for _, c := range ops {
		if c == op {
			n++
		}
	}
	return n
}

// A failing ListPermissions is an error at the account's Lake Formation
// scope: its tables are reported and answered, its grants are not.
func TestFailingPermissionsAreAnErrorAtTheirScope(t *testing.T) {
	f := estate(t)
	delete(f.catalog(baseAccount, mainRegion).failing, "broken")
	f.lake(baseAccount, mainRegion).failing = true
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts))
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != lfScope ||
		!strings.Contains(sink.Errors[0].Error, "Lake Formation permissions: LakeFormation ListPermissions: InternalServiceException") {
		t.Fatalf("errors %+v, want the Lake Formation listing's alone", sink.Errors)
	}
	if sink.Artifact("glue://aws-catalog/111111111111/eu-west-1/analytics/refunds_bf_1234_tmp") == nil {
		t.Error("the tables were not reported")
	}
	for _, u := range uris(sink, model.KindGrant) {
		if strings.HasPrefix(u, "glue://aws-catalog/111111111111/") {
			t.Errorf("a grant of the failed listing: %s", u)
		}
	}
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	if cov.Answered(lfScope) || !cov.Answered(baseAccount+"/"+mainRegion+"/analytics") || !cov.Answered("222222222222/eu-west-1/lakeformation") {
		t.Error("only the caller's Lake Formation may count as unanswered")
	}
}

// A principal that is no Lake Formation administrator would be answered
// only what it holds itself: an error at the scope, saying what to do,
// and no listing. An administrator named with a path, or a read-only
// one, is seen as the role the source assumes.
func TestNotAnAdministratorIsAnError(t *testing.T) {
	f := estate(t)
	f.lake(baseAccount, mainRegion).readOnly = nil
	other := f.lake(roleAccount, mainRegion)
	other.readOnly, other.admins = nil, []string{"arn:aws:iam::222222222222:role/platform/bfaudit-read"}
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts))
	if err != nil {
		t.Fatal(err)
	}
	var lf []model.ScopeError
	for _, e := range sink.Errors {
		if strings.Contains(e.Scope, "lakeformation") {
			lf = append(lf, e)
		}
	}
	if len(lf) != 1 || lf[0].Scope != lfScope || !strings.Contains(lf[0].Error, "arn:aws:iam::111111111111:user/auditor is not a data lake administrator") ||
		!strings.Contains(lf[0].Error, "lake_formation: false") {
		t.Fatalf("errors %+v, want the caller's account's, naming who and what to do", lf)
	}
	if n := calls(f.Calls(baseAccount, mainRegion), "ListPermissions"); n != 0 {
		t.Errorf("%d ListPermissions calls where bfaudit would see only part", n)
	}
	if len(uris(sink, model.KindGrant)) != 1 {
		t.Errorf("grants %v, want roleAccount's only", uris(sink, model.KindGrant))
	}
}

// lake_formation: false reads no Lake Formation at all.
func TestLakeFormationOff(t *testing.T) {
	f := estate(t)
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts, func(c *Collector) { c.LakeFormation = false }))
	if err != nil {
		t.Fatal(err)
	}
	if g := uris(sink, model.KindGrant); len(g) != 0 {
		t.Errorf("grants %v", g)
	}
	for _, op := range f.Calls(baseAccount, mainRegion) {
		if op == "GetDataLakeSettings" || op == "ListPermissions" {
			t.Errorf("called %s", op)
		}
	}
}

func TestSamePrincipal(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"arn:aws:iam::1:role/bfaudit-read", "arn:aws:iam::1:role/bfaudit-read", true},
		{"arn:aws:iam::1:role/bfaudit-read", "arn:aws:iam::1:role/audit/bfaudit-read", true},
		{"arn:aws:sts::1:assumed-role/bfaudit-read/bfaudit", "arn:aws:iam::1:role/bfaudit-read", true},
		{"arn:aws:iam::1:role/BFAUDIT-READ", "arn:aws:iam::1:role/bfaudit-read", true},
		{"arn:aws:iam::1:user/auditor", "arn:aws:iam::1:role/auditor", false},
		{"arn:aws:iam::1:role/bfaudit-read", "arn:aws:iam::2:role/bfaudit-read", false},
		{"arn:aws:iam::1:role/bfaudit-read", "IAM_ALLOWED_PRINCIPALS", false},
		{"arn:aws:iam::1:root", "arn:aws:iam::1:root", false},
		{"111111111111", "111111111111", false},
	} {
		if got := samePrincipal(c.a, c.b); got != c.same {
			t.Errorf("samePrincipal(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// A permission on a table of a database whose tables did not read may be
// a backfill's, tied through its table (by a tag, a property, a
// location): the Lake Formation scope does not answer, so no grant last
// seen there is concluded gone; the grants tied otherwise are reported.
func TestPermissionOnAnUnreadTableIsAnError(t *testing.T) {
	f := estate(t)
	f.lake(baseAccount, mainRegion).grant(analyst, onTbl("broken", "daily_ledger"), []string{"SELECT"})
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts))
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, e := range sink.Errors {
		at = append(at, e.Scope)
		if e.Scope == lfScope && !strings.Contains(e.Error, "permissions on tables of broken, whose tables did not read, could not be tied") {
			t.Errorf("error %s", e.Error)
		}
	}
	slices.Sort(at)
	if !slices.Equal(at, []string{"111111111111/eu-west-1/broken", lfScope}) {
		t.Errorf("errors at %v", at)
	}
	if n := len(uris(sink, model.KindGrant)); n != 8 {
		t.Errorf("%d grants reported, want the 8 tied", n)
	}
}

// An entry that says nothing of Lake Formation reads it.
func TestLakeFormationOnByDefault(t *testing.T) {
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/bfaudit-test")
	for entry, want := range map[bool]bool{false: true, true: false} {
		e := map[string]any{"type": "glue", "regions": []any{"eu-west-1"}}
		if entry {
			e["lake_formation"] = false
		}
		inst, err := collectors.Decode(e, collectors.Env{})
		if err != nil {
			t.Fatal(err)
		}
		if got := inst.Collector.(*Collector).LakeFormation; got != want {
			t.Errorf("%v: lake_formation %v, want %v", e, got, want)
		}
	}
}

// Saved answers: the grants read back as they were read (no STS, no
// settings asked); answers saved without Lake Formation leave its scope
// unanswered, the tables read.
func TestLakeFormationFromSavedAnswers(t *testing.T) {
	for _, saved := range []bool{true, false} {
		dir := t.TempDir()
		f := estate(t)
		delete(f.catalog(baseAccount, mainRegion).failing, "broken")
		if _, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts, func(c *Collector) {
			c.SaveAnswers, c.LakeFormation = dir, saved
		})); err != nil {
			t.Fatal(err)
		}
		c := New()
		c.Regions, c.ExportDir, c.Accounts = []string{mainRegion}, dir, []accountSetting{{ID: baseAccount}}
		if err := c.Init(collectors.Env{Source: "aws-catalog", Selector: correlate.MustSelector(), Now: func() time.Time { return auditTime }}); err != nil {
			t.Fatal(err)
		}
		sink, err := collectortest.Collect(t, c)
		if err != nil {
			t.Fatal(err)
		}
		grants := uris(sink, model.KindGrant)
		switch {
		case saved && (len(grants) != 7 || len(sink.Errors) != 0):
			t.Errorf("saved: grants %v, errors %+v", grants, sink.Errors)
		case !saved && (len(grants) != 0 || len(sink.Errors) != 1 || sink.Errors[0].Scope != lfScope):
			t.Errorf("not saved: grants %v, errors %+v, want an error at %s", grants, sink.Errors, lfScope)
		}
		if sink.Artifact("glue://aws-catalog/111111111111/eu-west-1/analytics/refunds_bf_1234_tmp") == nil {
			t.Errorf("saved %v: the tables were not read back", saved)
		}
	}
}
