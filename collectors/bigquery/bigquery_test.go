package bigquery

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"google.golang.org/api/option"
)

var now = time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)

func ms(t time.Time) int64 { return t.UnixMilli() }

func dsEntry(project, id, labels string) string {
	return fmt.Sprintf(`{"kind":"bigquery#dataset","id":"%s:%s","datasetReference":{"datasetId":%q,"projectId":%q},"labels":%s,"location":"US","type":"DEFAULT"}`,
		project, id, id, project, labels)
}

func dsBody(project, id, access string) string {
	return fmt.Sprintf(`{"kind":"bigquery#dataset","etag":"x","id":"%s:%s","datasetReference":{"datasetId":%q,"projectId":%q},
		"access":%s,"creationTime":"1767225600000","lastModifiedTime":"1767225600000","location":"US","type":"DEFAULT"}`,
		project, id, id, project, access)
}

func tableEntry(project, ds, id, labels string, created, expires int64) string {
	exp := ""
	if expires != 0 {
		exp = fmt.Sprintf(`,"expirationTime":"%d"`, expires)
	}
	return fmt.Sprintf(`{"kind":"bigquery#table","id":"%s:%s.%s","tableReference":{"projectId":%q,"datasetId":%q,"tableId":%q},
		"type":"TABLE","labels":%s,"timePartitioning":{"type":"DAY","field":"event_date"},"creationTime":"%d"%s}`,
		project, ds, id, project, ds, id, labels, created, exp)
}

func tableBody(project, ds, id string, rows, bytes, modified, expires int64) string {
	exp := ""
	if expires != 0 {
		exp = fmt.Sprintf(`,"expirationTime":"%d"`, expires)
	}
	return fmt.Sprintf(`{"kind":"bigquery#table","id":"%s:%s.%s","tableReference":{"projectId":%q,"datasetId":%q,"tableId":%q},
		"type":"TABLE","numRows":"%d","numBytes":"%d","numLongTermBytes":"0","lastModifiedTime":"%d","creationTime":"1767225600000"%s}`,
		project, ds, id, project, ds, id, rows, bytes, modified, exp)
}

var (
	jan2   = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	jan20  = time.Date(2026, 1, 20, 8, 30, 0, 0, time.UTC)
	mar1   = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	jan10  = time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	oneGiB = int64(1 << 30)
)

// estate: p-one with a production dataset holding some backfill tables and
// ACL entries, a backfill scratch dataset, and p-denied that answers 403.
func estate(t *testing.T) *fakeBQ {
	f := newFakeBQ(t)
	f.datasets["p-one"] = []string{
		dsEntry("p-one", "analytics", `{"team":"data"}`),
		dsEntry("p-one", "bf_1234_scratch", `{}`),
		dsEntry("p-one", "staging", `{"backfill-id":"BF-2001"}`),
	}
	f.datasetBodies["p-one/analytics"] = dsBody("p-one", "analytics", `[
		{"role":"OWNER","specialGroup":"projectOwners"},
		{"role":"READER","userByEmail":"prod-reader@example.com"},
		{"role":"WRITER","userByEmail":"bf-1234-runner@p-one.iam.gserviceaccount.com"},
		{"role":"roles/bigquery.dataEditor","userByEmail":"alice@example.com",
		 "condition":{"title":"until march","expression":"request.time < timestamp(\"2026-03-01T00:00:00Z\")"}},
		{"view":{"projectId":"p-one","datasetId":"reports","tableId":"v_orders"}}]`)
	f.datasetBodies["p-one/bf_1234_scratch"] = dsBody("p-one", "bf_1234_scratch", `[
		{"role":"WRITER","specialGroup":"projectWriters"},
		{"role":"OWNER","userByEmail":"creator@example.com"}]`)
	f.datasetBodies["p-one/staging"] = dsBody("p-one", "staging", `[]`)
	f.tables["p-one/analytics"] = []string{
		tableEntry("p-one", "analytics", "events", `{}`, ms(jan2), 0),
		tableEntry("p-one", "analytics", "bf_1234_events_fix", `{}`, ms(jan2), ms(mar1)),
		tableEntry("p-one", "analytics", "orders_tmp", `{"backfill_id":"bf-3003","owner":"alice"}`, ms(jan2), 0),
	}
	f.tables["p-one/bf_1234_scratch"] = []string{
		tableEntry("p-one", "bf_1234_scratch", "t1", `{}`, ms(jan2), ms(jan10)),
	}
	f.tableBodies["p-one/analytics/bf_1234_events_fix"] = tableBody("p-one", "analytics", "bf_1234_events_fix", 1200, 98765, ms(jan20), ms(mar1))
	f.tableBodies["p-one/analytics/orders_tmp"] = tableBody("p-one", "analytics", "orders_tmp", 50, 4096, ms(jan20), 0)
	f.tableBodies["p-one/bf_1234_scratch/t1"] = tableBody("p-one", "bf_1234_scratch", "t1", 0, 0, ms(jan2), ms(jan10))
	f.denied["p-denied"] = true
	return f
}

func newCollector(t *testing.T, srvURL string, projects ...string) *Collector {
	t.Helper()
	c := &Collector{
		Projects:           projects,
		FetchTableMetadata: true,
		DatasetACLs:        ACLsAll,
		Principals:         []Principal{{Member: "user:alice@example.com", BackfillID: "BF-1234"}},
		OwnerLabel:         "owner",
		MaxBytesBilled:     oneGiB,
		Timeout:            5 * time.Second,
		Endpoint:           srvURL,
		retry:              remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
		clientOptions:      []option.ClientOption{option.WithoutAuthentication()},
	}
	if err := c.Init(testEnv()); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return c
}

// testEnv is the Env of the tests' audit, at now.
func testEnv() collectors.Env { return envAt(func() time.Time { return now }) }

func envAt(now func() time.Time) collectors.Env {
	return collectors.Env{Source: "bigquery", Selector: correlate.MustSelector(), Now: now}
}

func collect(t *testing.T, c *Collector) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return sink
}

func TestCollectTables(t *testing.T) {
	f := estate(t)
	srv := f.start()
	sink := collect(t, newCollector(t, srv.URL, "p-one"))
	if len(sink.Errors) != 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	tests := []struct {
		name, uri, id, how, owner string
		state                     model.State
		expires, modified         time.Time
		rows, bytes               string
	}{
		{"named for a backfill in a production dataset", "bigquery://p-one/analytics/bf_1234_events_fix", "bf_1234", "name", "",
			model.StateActive, mar1, jan20, "1200", "98765"},
		{"labelled, no expiration set, owner from label", "bigquery://p-one/analytics/orders_tmp", "bf-3003", "label", "alice",
			model.StateActive, time.Time{}, jan20, "50", "4096"},
		{"in a backfill dataset, past its expiration", "bigquery://p-one/bf_1234_scratch/t1", "bf_1234", "name", "",
			model.StateExpired, jan10, jan2, "0", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := sink.Artifact(tt.uri)
			if a == nil {
				t.Fatalf("no artifact %s; have %v", tt.uri, uris(sink))
			}
			if a.Kind != model.KindTable || a.Scope != "p-one/"+a.Attr(AttrDataset) || a.BackfillID != tt.id || a.Correlation != tt.how || a.Owner != tt.owner {
				t.Errorf("kind/scope/id/how/owner = %s/%s/%s/%s/%s", a.Kind, a.Scope, a.BackfillID, a.Correlation, a.Owner)
			}
			if a.State != tt.state || !a.ExpiresAt.Time().Equal(tt.expires) || !a.ModifiedAt.Time().Equal(tt.modified) || !a.CreatedAt.Time().Equal(jan2) {
				t.Errorf("state/expires/modified/created = %s/%v/%v/%v", a.State, a.ExpiresAt, a.ModifiedAt, a.CreatedAt)
			}
			if a.Attr(model.AttrRows) != tt.rows || a.Attr(model.AttrBytes) != tt.bytes {
				t.Errorf("rows/bytes = %s/%s; want %s/%s", a.Attr(model.AttrRows), a.Attr(model.AttrBytes), tt.rows, tt.bytes)
			}
			if a.Attr(AttrPartitioning) != "DAY(event_date)" {
				t.Errorf("partitioning = %q", a.Attr(AttrPartitioning))
			}
		})
	}
	if sink.Artifact("bigquery://p-one/analytics/events") != nil {
		t.Error("production table reported as backfill machinery")
	}
	// Listing pages: 3 datasets and 3 tables at 2 a page.
	if n := f.count("/projects/p-one/datasets?"); n != 2 {
		t.Errorf("datasets.list calls = %d; want 2 pages", n)
	}
	if n := f.count("/datasets/analytics/tables?"); n != 2 {
		t.Errorf("tables.list calls for analytics = %d; want 2 pages", n)
	}
	// Metadata only for the tables kept, never for production ones.
	if n := f.count("/tables/events?"); n != 0 {
		t.Errorf("tables.get was called for a production table")
	}
	if n := f.count("view=STORAGE_STATS"); n != 3 {
		t.Errorf("tables.get calls = %d; want 3 (one per table kept)", n)
	}
}

func TestCollectACLGrants(t *testing.T) {
	f := estate(t)
	srv := f.start()
	sink := collect(t, newCollector(t, srv.URL, "p-one"))
	tests := []struct {
		name, uri, id, how, principal, role, timeBound string
		expires                                        time.Time
	}{
		{"backfill account on a production dataset", "bigquery://p-one/analytics/acl/WRITER/serviceAccount:bf-1234-runner@p-one.iam.gserviceaccount.com",
			"bf-1234", "name", "serviceAccount:bf-1234-runner@p-one.iam.gserviceaccount.com", "WRITER", "false", time.Time{}},
		{"declared principal with a time condition", "bigquery://p-one/analytics/acl/roles/bigquery.dataEditor/user:alice@example.com?condition=until+march",
			"BF-1234", "declared", "user:alice@example.com", "roles/bigquery.dataEditor", "true", mar1},
		{"owner of a backfill dataset", "bigquery://p-one/bf_1234_scratch/acl/OWNER/user:creator@example.com",
			"bf_1234", "name", "user:creator@example.com", "OWNER", "false", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := sink.Artifact(tt.uri)
			if a == nil {
				t.Fatalf("no artifact %s; have %v", tt.uri, uris(sink))
			}
			if a.Kind != model.KindGrant || a.BackfillID != tt.id || a.Correlation != tt.how || a.State != model.StateActive {
				t.Errorf("kind/id/how/state = %s/%s/%s/%s", a.Kind, a.BackfillID, a.Correlation, a.State)
			}
			if a.Attr(model.AttrPrincipal) != tt.principal || a.Attr(model.AttrRole) != tt.role || a.Attr(model.AttrTimeBound) != tt.timeBound || !a.ExpiresAt.Time().Equal(tt.expires) {
				t.Errorf("principal/role/time_bound/expires = %s/%s/%s/%v", a.Attr(model.AttrPrincipal), a.Attr(model.AttrRole), a.Attr(model.AttrTimeBound), a.ExpiresAt)
			}
		})
	}
	for _, a := range sink.Artifacts {
		if a.Kind != model.KindGrant {
			continue
		}
		if p := a.Attr(model.AttrPrincipal); p == "user:prod-reader@example.com" || strings.HasPrefix(p, "specialGroup:project") {
			t.Errorf("non-backfill ACL entry reported: %s", a.URI)
		}
	}
}

func TestPermissionDeniedDegradesOneProject(t *testing.T) {
	f := estate(t)
	srv := f.start()
	sink := collect(t, newCollector(t, srv.URL, "p-denied", "p-one"))
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-denied" || !strings.Contains(sink.Errors[0].Error, "403") {
		t.Fatalf("errors = %+v; want one 403 for p-denied", sink.Errors)
	}
	if sink.Artifact("bigquery://p-one/analytics/orders_tmp") == nil {
		t.Errorf("p-one was not collected: %v", uris(sink))
	}
}

func TestNoProjectAnsweredFails(t *testing.T) {
	f := estate(t)
	f.denied["p-denied-too"] = true
	srv := f.start()
	err := collectors.Collect(context.Background(), newCollector(t, srv.URL, "p-denied", "p-denied-too"), collectors.NewTestSink())
	if err == nil || !strings.Contains(err.Error(), "no unit answered (p-denied, p-denied-too)") {
		t.Fatalf("want failure, got %v", err)
	}
}

func TestRateLimitedListRetried(t *testing.T) {
	f := estate(t)
	f.throttle["/datasets/analytics/tables"] = 1
	f.throttle["/projects/p-one/datasets"] = 1
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	c.Concurrency = 1 // waits is appended without a lock
	var waits []time.Duration
	c.retry.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	sink := collect(t, c)
	if len(sink.Errors) != 0 {
		t.Fatalf("429 should be retried: %+v", sink.Errors)
	}
	if len(waits) != 2 || waits[0] != 2*time.Second {
		t.Errorf("waits = %v; want 2 honouring Retry-After: 2", waits)
	}
	if sink.Artifact("bigquery://p-one/analytics/bf_1234_events_fix") == nil {
		t.Errorf("table missing after retry: %v", uris(sink))
	}
}

func TestWithoutMetadataOrACLs(t *testing.T) {
	f := estate(t)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	c.FetchTableMetadata = false
	c.DatasetACLs = ACLsNone
	sink := collect(t, c)
	a := sink.Artifact("bigquery://p-one/analytics/bf_1234_events_fix")
	if a == nil || !a.ExpiresAt.Time().Equal(mar1) || a.Attr(model.AttrRows) != "" {
		t.Fatalf("table from the list alone: %+v", a)
	}
	if f.count("view=STORAGE_STATS") != 0 || f.count("accessPolicyVersion") != 0 {
		t.Errorf("metadata or ACLs were read: %v", f.requests)
	}
	for _, a := range sink.Artifacts {
		if a.Kind == model.KindGrant {
			t.Errorf("grant with dataset_acls none: %s", a.URI)
		}
	}
}

func TestBackfillACLsOnly(t *testing.T) {
	f := estate(t)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	c.DatasetACLs = ACLsBackfill
	sink := collect(t, c)
	if f.count("/datasets/analytics?") != 0 {
		t.Error("the production dataset's ACL was read with dataset_acls: backfill")
	}
	if sink.Artifact("bigquery://p-one/bf_1234_scratch/acl/OWNER/user:creator@example.com") == nil {
		t.Errorf("backfill dataset's ACL missing: %v", uris(sink))
	}
}

func TestInitErrorsNameTheKey(t *testing.T) {
	tests := []struct {
		name string
		c    Collector
		want string
	}{
		{"no projects", Collector{}, "projects: missing"},
		{"bad acl mode", Collector{Projects: []string{"p"}, DatasetACLs: "some"}, "dataset_acls"},
		{"validation without a byte cap", Collector{Projects: []string{"p"}, RunValidation: true}, "max_bytes_billed"},
		{"endpoint not a URL", Collector{Projects: []string{"p"}, Endpoint: "bigquery", Timeout: time.Second}, "endpoint"},
		{"principal without member", Collector{Projects: []string{"p"}, Principals: []Principal{{}}}, "principals[0].member"},
		{"no timeout", Collector{Projects: []string{"p"}}, "timeout: must be a positive duration"},
		{"negative timeout", Collector{Projects: []string{"p"}, Timeout: -time.Second}, "timeout: must be a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.clientOptions = []option.ClientOption{option.WithoutAuthentication()}
			err := tt.c.Init(envAt(time.Now))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Init() = %v; want %q", err, tt.want)
			}
		})
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	// Init builds clients from Application Default Credentials; a dummy
	// authorized-user file lets it do so without a network.
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c := inst.Collector.(*Collector)
	if inst.Name != "warehouse-bq" || c.MaxBytesBilled != oneGiB || c.QueryTimeout != 5*time.Minute || c.svc == nil || len(c.Principals) != 1 {
		t.Errorf("decoded %q %+v", inst.Name, c)
	}
}

func uris(s *collectors.TestSink) []string {
	var out []string
	for _, a := range s.Artifacts {
		out = append(out, a.URI)
	}
	slices.Sort(out)
	return out
}
