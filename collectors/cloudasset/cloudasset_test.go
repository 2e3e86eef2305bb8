package cloudasset

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"google.golang.org/api/option"
)

// newCollector points a collector at the fake, without credentials and
// without real sleeps between retries.
func newCollector(t testing.TB, url string, scopes ...string) *Collector {
	t.Helper()
	c := &Collector{
		Scopes: scopes, Endpoint: url, Timeout: 5 * time.Second,
		Principals:    []Principal{{Member: "serviceAccount:" + faultAccount, BackfillID: "BF-7001"}},
		retry:         remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
		clientOptions: []option.ClientOption{option.WithoutAuthentication()},
	}
	if err := c.Init(testEnv("")); err != nil {
		t.Fatalf("Init: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// testEnv is the Env of the tests' audit, at auditNow, with files read
// from dir.
func testEnv(dir string) collectors.Env {
	return collectors.Env{Source: "cloudasset", Selector: correlate.MustSelector(), BaseDir: dir, Now: func() time.Time { return auditNow }}
}

func collect(t testing.TB, c collectors.Collector) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return sink
}

func uris(s *collectors.TestSink) []string {
	var out []string
	for _, a := range s.Artifacts {
		out = append(out, a.URI)
	}
	sort.Strings(out)
	return out
}

// wantURIs is what the sample estate holds of BF-7001, and nothing else.
var wantURIs = []string{
	"bigquery://proj/analytics/acl/WRITER/serviceAccount:" + faultAccount,
	"bigquery://proj/analytics/bf_7001_tmp",
	"bigquery://proj/bf_7001_scratch/acl/READER/group:analysts@example.com?condition=until+feb",
	"bigquery://proj/bf_7001_scratch/joined",
	"bigquery://proj/bf_7001_scratch/staging",
	"gcpiam://proj/bindings/roles/bigquery.dataEditor/serviceAccount:" + faultAccount,
	"gcpiam://proj/bindings/roles/bigquery.dataViewer/user:carol@example.com?condition=BF-7001+temporary+read",
	"gcpiam://proj/serviceAccounts/" + faultAccount + "/keys/k1",
	"gcpiam://proj/serviceAccounts/replay@proj.iam.gserviceaccount.com/keys/k2",
	"pubsub://other/subscriptions/retry-mirror",
	"pubsub://proj/subscriptions/retry-worker",
	"pubsub://proj/topics/bf-7001-retry",
}

func TestOrganizationSearch(t *testing.T) {
	f := newFakeAsset(t, sampleEstate())
	f.pageSize = 2 // several pages per search
	srv := f.start()
	sink := collect(t, newCollector(t, srv.URL, "organizations/42"))
	if len(sink.Errors) != 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	if got := strings.Join(uris(sink), "\n"); got != strings.Join(wantURIs, "\n") {
		t.Fatalf("artifacts:\n%s\nwant:\n%s", got, strings.Join(wantURIs, "\n"))
	}
	tmp := sink.Artifact("bigquery://proj/analytics/bf_7001_tmp")
	if tmp.Scope != "proj/analytics" || tmp.Attr(model.AttrRows) != "1200" || tmp.Owner != "data-eng" || tmp.System != "bigquery" || tmp.Correlation != "label" {
		t.Errorf("table: %+v", tmp)
	}
	if j := sink.Artifact("bigquery://proj/bf_7001_scratch/joined"); j.State != model.StateExpired || j.BackfillID != "bf_7001" {
		t.Errorf("a table tied by its dataset, past its expiration: %+v", j)
	}
	key := sink.Artifact("gcpiam://proj/serviceAccounts/" + faultAccount + "/keys/k1")
	if key.Scope != "proj/serviceAccounts/"+faultAccount || key.Attr(model.AttrTimeBound) != "false" || key.System != "gcpiam" {
		t.Errorf("key: %+v", key)
	}
	push := sink.Artifact("pubsub://proj/subscriptions/retry-worker")
	if push.Attr("push_endpoint") != "https://worker.example.com/push" || push.Scope != "proj/subscriptions" {
		t.Errorf("push subscription: %+v", push)
	}
	carol := sink.Artifact("gcpiam://proj/bindings/roles/bigquery.dataViewer/user:carol@example.com?condition=BF-7001+temporary+read")
	if carol.Attr(model.AttrTimeBound) != "true" || carol.State != model.StateExpired || carol.Scope != "proj" {
		t.Errorf("conditional binding: %+v", carol)
	}
}

// The searches ask the server for backfill machinery, never for
// everything: calls grow with what matches, not with projects.
func TestQueriesAreFiltered(t *testing.T) {
	f := newFakeAsset(t, sampleEstate())
	srv := f.start()
	collect(t, newCollector(t, srv.URL, "organizations/42"))
	qs := f.queries()
	for _, q := range qs {
		if strings.HasSuffix(q, " ") {
			t.Errorf("an unfiltered search: %q", q)
		}
	}
	want := []string{
		"/v1/organizations/42:searchAllResources labels.backfill_id:* OR labels.backfill-id:* OR labels.backfill:* OR bf*",
		"/v1/organizations/42:searchAllIamPolicies policy:bf*",
	}
	for _, w := range want {
		if !contains(qs, w) {
			t.Errorf("no search %q among %q", w, qs)
		}
	}
	// 2 filters, the declared principal, then one follow-up of each kind.
	if len(qs) != 7 {
		t.Errorf("%d calls: %q", len(qs), qs)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Calls grow with the machinery found, not with the projects searched:
// an organization five times larger, with five times the backfills (still
// within one follow-up batch), costs the same four calls.
func TestCallsDoNotGrowWithProjects(t *testing.T) {
	calls := map[int]int{}
	for _, n := range []int{200, 1000} {
		f := newFakeAsset(t, largeEstate(n))
		c := newCollector(t, f.start().URL, "organizations/42")
		c.Principals = nil
		sink := collect(t, c)
		if len(sink.Errors) != 0 || len(sink.Artifacts) != 5*n/100 {
			t.Fatalf("%d projects: %d artifacts, errors %+v", n, len(sink.Artifacts), sink.Errors)
		}
		calls[n] = f.calls()
	}
	if calls[200] != 4 || calls[1000] != 4 {
		t.Errorf("calls %v; want 4 for either size (2 searches, 2 follow-ups)", calls)
	}
}

// A search result without its resource data was read only in part.
func TestReadInPartWithoutData(t *testing.T) {
	f := newFakeAsset(t, sampleEstate())
	f.stripped["//bigquery.googleapis.com/projects/proj/datasets/analytics/tables/bf_7001_tmp"] = true
	sink := collect(t, newCollector(t, f.start().URL, "projects/proj"))
	if n, p := sink.Read("proj/analytics", "tables"); n != 1 || p != 1 {
		t.Errorf("proj/analytics: read %d tables (%d in part), want 1 (1 in part)", n, p)
	}
	if n, p := sink.Read("proj/topics", "topics"); n != 1 || p != 0 {
		t.Errorf("proj/topics: read %d topics (%d in part), want the backfill topic", n, p)
	}
}
