package glue

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// uris lists the URIs of what a sink kept of a kind, sorted, each with
// its backfill and how it was tied.
func uris(s *collectors.TestSink, kind model.Kind) []string {
	var out []string
	for _, a := range s.Artifacts {
		if a.Kind == kind {
			out = append(out, a.URI+" "+a.BackfillID+" "+a.Correlation)
		}
	}
	slices.Sort(out)
	return out
}

// The tables of two accounts, each tied the way it says: tags first, then
// table properties, name, database, location. Production tables, a bf16
// table, a tag-only table, a resource link are not reported; a database
// whose tables fail is an error at its own scope, and tags are read only
// for the tables kept.
func TestCollectTiesTables(t *testing.T) {
	f := estate(t)
	c := newOn(t, f.URL, withAccounts)
	sink, err := collectortest.Collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"glue://aws-catalog/111111111111/eu-west-1/analytics/ledger_fix BF-2001 label",
		"glue://aws-catalog/111111111111/eu-west-1/analytics/refunds_bf_1234_tmp bf-1234 label",
		"glue://aws-catalog/111111111111/eu-west-1/analytics/replay_output bf-1234 path",
		"glue://aws-catalog/111111111111/eu-west-1/scratch_bf_1234/refunds_stage bf_1234 folder",
		"glue://aws-catalog/222222222222/eu-west-1/finance/bf_1234_refunds bf_1234 name",
	}
	if got := uris(sink, model.KindTable); !slices.Equal(got, want) {
		t.Errorf("artifacts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "111111111111/eu-west-1/broken" ||
		!strings.Contains(sink.Errors[0].Error, "tables of database broken: Glue GetTables: InternalServiceException") {
		t.Errorf("errors %+v, want the broken database's alone", sink.Errors)
	}
	a := sink.Artifact("glue://aws-catalog/111111111111/eu-west-1/analytics/refunds_bf_1234_tmp")
	if a.Kind != model.KindTable || a.Scope != "111111111111/eu-west-1/analytics" || a.Name != "analytics.refunds_bf_1234_tmp" ||
		a.Owner != "data-eng" || !a.CreatedAt.Time().Equal(created) || !a.ModifiedAt.Time().Equal(updated) || !a.ExpiresAt.IsZero() {
		t.Errorf("scratch table %+v", a)
	}
	for k, v := range map[string]string{
		model.AttrRows: "1200", model.AttrBytes: "4096", AttrLocation: "s3://acme-athena/tmp/bf-1234/refunds/", AttrExternal: "true",
		AttrProjection: "true", AttrClassification: "parquet", AttrDatabase: "analytics", AttrVersionID: "3", AttrTableType: "EXTERNAL_TABLE",
		AttrTableARN: "arn:aws:glue:eu-west-1:111111111111:table/analytics/refunds_bf_1234_tmp",
	} {
		if got := a.Attr(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if b := sink.Artifact("glue://aws-catalog/111111111111/eu-west-1/analytics/replay_output"); b.Attr(model.AttrRows) != "77" || b.Attr(model.AttrBytes) != "1024" {
		t.Errorf("a crawler's counts: %v", b.Attributes)
	}
	if k := sink.Artifact("glue://aws-catalog/111111111111/eu-west-1/analytics/ledger_fix"); k.Attr(model.AttrKeepUntil) != "2026-12-31" ||
		k.Attr(model.AttrKeepReason) != "finance reads it until the audit closes" {
		t.Errorf("keep from table properties: %v", k.Attributes)
	}
	if n := f.catalog(baseAccount, mainRegion).tagCalls; n != 4 {
		t.Errorf("%d GetTags calls in the caller's account, want 4 (one per table kept)", n)
	}
	for scope, wantN := range map[string]int{"111111111111/eu-west-1": 3, "222222222222/eu-west-1": 1} {
		if n, _ := sink.Read(scope, "databases"); n != wantN {
			t.Errorf("databases read at %s: %d, want %d", scope, n, wantN)
		}
	}
	if n, _ := sink.Read("111111111111/eu-west-1/analytics", "tables"); n != 6 {
		t.Errorf("tables read in analytics: %d, want 6 (over three pages)", n)
	}
}

// A role that cannot be assumed fails its account's unit, naming the role;
// the caller's account is read as ever.
func TestRefusedRoleFailsItsAccountOnly(t *testing.T) {
	f := estate(t)
	f.Refuse(roleAccount)
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts))
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, e := range sink.Errors {
		failed = append(failed, e.Scope)
		if e.Scope == "222222222222/eu-west-1" && (!strings.Contains(e.Error, "role arn:aws:iam::222222222222:role/bfaudit-read") || !strings.Contains(e.Error, "AccessDenied")) {
			t.Errorf("the refused account's error does not name the role and the refusal: %s", e.Error)
		}
	}
	slices.Sort(failed)
	if !slices.Equal(failed, []string{"111111111111/eu-west-1/broken", "222222222222/eu-west-1"}) {
		t.Errorf("errors at %v", failed)
	}
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	if cov.Answered("222222222222/eu-west-1/finance") || !cov.Answered("111111111111/eu-west-1/analytics") {
		t.Error("the refused account must not count as answered, the caller's must")
	}
}

// No credential is in any output: not the secret key (never sent), nor the
// session token (sent, in a header), nor an assumed role's:
// not in what was collected, the report (its coverage names the refused
// role), nor the fix script and plan.
func TestNoCredentialInAnyOutput(t *testing.T) {
	f := estate(t)
	f.Refuse(roleAccount)
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts))
	if err != nil {
		t.Fatal(err)
	}
	collected, _ := json.Marshal(sink)
	report, _ := json.Marshal(collectortest.Audit(t, []collectors.Instance{
		fixtest.PlanSource(t, "BF-1234", true),
		{Name: "aws-catalog", Type: "glue", Collector: newOn(t, f.URL, withAccounts)},
	}, fixtest.Now))
	healthy := estate(t)
	delete(healthy.catalog(baseAccount, mainRegion).failing, "broken")
	in := fixtest.Audit(t, correlate.MustSelector(), fixtest.PlanSource(t, "BF-1234", true),
		collectors.Instance{Name: "aws-catalog", Type: "glue", Collector: newOn(t, healthy.URL, withAccounts)})
	plan, err := fix.NewPlan(in, "BF-1234", func(remedy.Action) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var script, planJSON strings.Builder
	if err := fix.WriteScript(&script, plan); err != nil {
		t.Fatal(err)
	}
	if err := fix.WriteJSON(&planJSON, plan); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"aws glue delete-table", "aws lakeformation revoke-permissions"} {
		if !strings.Contains(script.String(), cmd) {
			t.Fatalf("the fix script has no %s: the check proves nothing\n%s", cmd, script.String())
		}
	}
	for name, out := range map[string]string{"collected": string(collected), "report": string(report), "fix script": script.String(), "fix plan": planJSON.String()} {
		for _, secret := range []string{canarySecret, canaryToken, smithy.AssumedSecret, smithy.AssumedToken} {
			if strings.Contains(out, secret) {
				t.Errorf("%s holds %s", name, secret)
			}
		}
	}
}

// The accounts not answering fails the source: its units cannot be known.
func TestAccountsNotListedFailTheSource(t *testing.T) {
	f := estate(t)
	c := newOn(t, f.URL, func(c *Collector) { c.Endpoint = "http://127.0.0.1:1" })
	if _, err := collectortest.Collect(t, c); err == nil || !strings.Contains(err.Error(), "GetCallerIdentity") {
		t.Errorf("Collect = %v, want the caller's account named as what failed", err)
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/bfaudit-test")
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c := inst.Collector.(*Collector)
	if c.Timeout != 30*time.Second || len(c.Accounts) != 1 || c.Regions[0] != "eu-west-1" || !c.LakeFormation {
		t.Errorf("sample decoded as %+v", c.Settings)
	}
}

func TestBadSettingsNameTheKey(t *testing.T) {
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "glue", "regions": []any{"eu-west-1"}})
	for _, tc := range []struct {
		entry map[string]any
		want  string
	}{
		{map[string]any{"type": "glue"}, "regions: missing"},
		{map[string]any{"type": "glue", "regions": []any{"eu-west-1"}, "accounts": []any{map[string]any{"id": "12"}}}, "accounts[0].id"},
		{map[string]any{"type": "glue", "regions": []any{"eu-west-1"}, "databases": []any{"x"}}, "databases"},
		{map[string]any{"type": "glue", "regions": []any{"eu-west-1"}, "lake_formation": "sometimes"}, "lake_formation"},
	} {
		if _, err := collectors.Decode(tc.entry, collectors.Env{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error naming %s", tc.entry, err, tc.want)
		}
	}
}
