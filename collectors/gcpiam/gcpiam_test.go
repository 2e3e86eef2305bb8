package gcpiam

import (
	"context"
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

const policyOne = `{
  "version": 3,
  "etag": "BwYx9example=",
  "bindings": [
    {"role": "roles/bigquery.dataEditor",
     "members": ["serviceAccount:bf-1234-runner@p-one.iam.gserviceaccount.com", "user:prod-owner@example.com"]},
    {"role": "roles/bigquery.admin",
     "members": ["user:Alice@example.com"],
     "condition": {"title": "temporary admin", "expression": "request.time < timestamp('2026-03-01T00:00:00.000Z')"}},
    {"role": "roles/storage.objectAdmin",
     "members": ["serviceAccount:etl@p-one.iam.gserviceaccount.com"],
     "condition": {"title": "BF-2001 replay write", "description": "for the refunds replay",
                   "expression": "request.time < timestamp(\"2026-01-15T00:00:00Z\") && resource.name.startsWith(\"projects/_/buckets/replay\")"}},
    {"role": "roles/bigquery.jobUser",
     "members": ["user:alice@example.com"],
     "condition": {"title": "broken", "expression": "request.time < timestamp(\"next week\")"}},
    {"role": "roles/viewer", "members": ["user:bob@example.com", "group:analysts@example.com"]}
  ]
}`

func accountJSON(project, email, display string, disabled bool) string {
	return `{"name":"projects/` + project + `/serviceAccounts/` + email + `","projectId":"` + project +
		`","uniqueId":"1093","email":"` + email + `","displayName":"` + display + `","disabled":` +
		map[bool]string{true: "true", false: "false"}[disabled] + `}`
}

func keyJSON(project, email, id, after, before string, disabled bool) string {
	s := `{"name":"projects/` + project + `/serviceAccounts/` + email + `/keys/` + id +
		`","validAfterTime":"` + after + `","validBeforeTime":"` + before +
		`","keyAlgorithm":"KEY_ALG_RSA_2048","keyOrigin":"GOOGLE_PROVIDED","keyType":"USER_MANAGED"`
	if disabled {
		s += `,"disabled":true`
	}
	return s + "}"
}

// estate is a small, real-looking pair of projects.
func estate(t *testing.T) *fakeGCP {
	f := newFake(t)
	f.policies["p-one"] = policyOne
	f.policies["p-two"] = `{"version":1,"etag":"ACAB","bindings":[{"role":"roles/editor","members":["serviceAccount:bf-1234-runner@p-one.iam.gserviceaccount.com"]}]}`
	f.accounts["p-one"] = []string{
		accountJSON("p-one", "etl@p-one.iam.gserviceaccount.com", "ETL", false),
		accountJSON("p-one", "replay@p-one.iam.gserviceaccount.com", "BF-3003 replay runner", false),
		accountJSON("p-one", "bf-1234-runner@p-one.iam.gserviceaccount.com", "runner", false),
		accountJSON("p-one", "old@p-one.iam.gserviceaccount.com", "bf_4004 leftovers", true),
		accountJSON("p-one", "web@p-one.iam.gserviceaccount.com", "web", false),
	}
	f.keys["bf-1234-runner@p-one.iam.gserviceaccount.com"] = []string{
		keyJSON("p-one", "bf-1234-runner@p-one.iam.gserviceaccount.com", "k-forever", "2026-01-02T10:00:00Z", "9999-12-31T23:59:59Z", false),
		keyJSON("p-one", "bf-1234-runner@p-one.iam.gserviceaccount.com", "k-off", "2026-01-03T10:00:00Z", "9999-12-31T23:59:59Z", true),
	}
	f.keys["replay@p-one.iam.gserviceaccount.com"] = []string{
		keyJSON("p-one", "replay@p-one.iam.gserviceaccount.com", "k-old", "2025-10-01T00:00:00Z", "2026-01-15T00:00:00Z", false),
	}
	f.keys["old@p-one.iam.gserviceaccount.com"] = []string{
		keyJSON("p-one", "old@p-one.iam.gserviceaccount.com", "k-acct-off", "2025-10-01T00:00:00Z", "2027-01-01T00:00:00Z", false),
	}
	f.keys["ext@p-other.iam.gserviceaccount.com"] = []string{
		keyJSON("p-other", "ext@p-other.iam.gserviceaccount.com", "k-ext", "2026-01-20T00:00:00Z", "2026-04-01T00:00:00Z", false),
	}
	return f
}

func newCollector(t *testing.T, srvURL string, projects ...string) *Collector {
	t.Helper()
	c := &Collector{
		Projects:            projects,
		ListServiceAccounts: true,
		Timeout:             5 * time.Second,
		Endpoint:            srvURL,
		Principals: []Principal{
			{Member: "user:alice@example.com", BackfillID: "BF-1234"},
			{Member: "serviceAccount:ext@p-other.iam.gserviceaccount.com", BackfillID: "BF-1234"},
		},
		retry:         remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
		clientOptions: []option.ClientOption{option.WithoutAuthentication()},
	}
	if err := c.Init(testEnv()); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return c
}

// testEnv is the Env of the tests' audit, at now.
func testEnv() collectors.Env { return envAt(func() time.Time { return now }) }

func envAt(now func() time.Time) collectors.Env {
	return collectors.Env{Source: "gcpiam", Selector: correlate.MustSelector(), Now: now}
}

func TestCollectGrants(t *testing.T) {
	f := estate(t)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if len(sink.Errors) != 0 {
		t.Fatalf("unexpected errors: %+v", sink.Errors)
	}
	tests := []struct {
		name, uri, id, how string
		state              model.State
		timeBound          string
		expires            time.Time
	}{
		{"backfill id in the member's e-mail, no condition",
			"gcpiam://p-one/bindings/roles/bigquery.dataEditor/serviceAccount:bf-1234-runner@p-one.iam.gserviceaccount.com",
			"bf-1234", "name", model.StateActive, "false", time.Time{}},
		{"declared principal, time-bound (any case of the e-mail)",
			"gcpiam://p-one/bindings/roles/bigquery.admin/user:Alice@example.com?condition=temporary+admin",
			"BF-1234", "declared", model.StateActive, "true", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"backfill id in the condition title, bound already passed",
			"gcpiam://p-one/bindings/roles/storage.objectAdmin/serviceAccount:etl@p-one.iam.gserviceaccount.com?condition=BF-2001+replay+write",
			"BF-2001", "name", model.StateExpired, "true", time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)},
		{"condition that does not parse is not time-bound",
			"gcpiam://p-one/bindings/roles/bigquery.jobUser/user:alice@example.com?condition=broken",
			"BF-1234", "declared", model.StateActive, "false", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := sink.Artifact(tt.uri)
			if a == nil {
				t.Fatalf("no artifact %s; have %v", tt.uri, uris(sink))
			}
			if a.Kind != model.KindGrant || a.Scope != "p-one" || a.BackfillID != tt.id || a.Correlation != tt.how {
				t.Errorf("kind/scope/id/how = %s/%s/%s/%s", a.Kind, a.Scope, a.BackfillID, a.Correlation)
			}
			if a.State != tt.state || a.Attr(model.AttrTimeBound) != tt.timeBound || !a.ExpiresAt.Time().Equal(tt.expires) {
				t.Errorf("state/time_bound/expires = %s/%s/%v; want %s/%s/%v", a.State, a.Attr(model.AttrTimeBound), a.ExpiresAt, tt.state, tt.timeBound, tt.expires)
			}
			if a.Attr(model.AttrRole) == "" || a.Attr(model.AttrPrincipal) == "" {
				t.Errorf("role/principal missing: %v", a.Attributes)
			}
		})
	}
	broken := sink.Artifact(tests[3].uri)
	if broken != nil && !strings.Contains(broken.Attr(model.AttrConditionError), "column") {
		t.Errorf("condition error should name the column: %q", broken.Attr(model.AttrConditionError))
	}
	for _, a := range sink.Artifacts {
		if p := a.Attr(model.AttrPrincipal); p == "user:prod-owner@example.com" || p == "user:bob@example.com" || p == "group:analysts@example.com" {
			t.Errorf("production member reported as backfill machinery: %s", a.URI)
		}
	}
	if f.count(`/v3/projects/p-one:getIamPolicy`) != 1 {
		t.Errorf("getIamPolicy calls: %v", f.requests)
	}
}

func TestCollectKeys(t *testing.T) {
	f := estate(t)
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	keyURI := func(project, email, id string) string {
		return "gcpiam://" + project + "/serviceAccounts/" + email + "/keys/" + id
	}
	tests := []struct {
		name, uri, id string
		state         model.State
		created       time.Time
		expires       time.Time
	}{
		{"valid forever: 9999 means no expiry",
			keyURI("p-one", "bf-1234-runner@p-one.iam.gserviceaccount.com", "k-forever"), "bf-1234",
			model.StateActive, time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC), time.Time{}},
		{"disabled key",
			keyURI("p-one", "bf-1234-runner@p-one.iam.gserviceaccount.com", "k-off"), "bf-1234",
			model.StateDisabled, time.Date(2026, 1, 3, 10, 0, 0, 0, time.UTC), time.Time{}},
		{"account tied by display name, key past validity",
			keyURI("p-one", "replay@p-one.iam.gserviceaccount.com", "k-old"), "BF-3003",
			model.StateExpired, time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)},
		{"key of a disabled account",
			keyURI("p-one", "old@p-one.iam.gserviceaccount.com", "k-acct-off"), "bf_4004",
			model.StateDisabled, time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"declared principal in a project not listed",
			keyURI("p-other", "ext@p-other.iam.gserviceaccount.com", "k-ext"), "BF-1234",
			model.StateActive, time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := sink.Artifact(tt.uri)
			if a == nil {
				t.Fatalf("no artifact %s; have %v", tt.uri, uris(sink))
			}
			if a.Kind != model.KindCredential || a.BackfillID != tt.id || a.State != tt.state {
				t.Errorf("kind/id/state = %s/%s/%s; want credential/%s/%s", a.Kind, a.BackfillID, a.State, tt.id, tt.state)
			}
			if !a.CreatedAt.Time().Equal(tt.created) || !a.ExpiresAt.Time().Equal(tt.expires) {
				t.Errorf("created/expires = %v/%v; want %v/%v", a.CreatedAt, a.ExpiresAt, tt.created, tt.expires)
			}
			wantValid := ""
			if !tt.expires.IsZero() {
				wantValid = tt.expires.Format(time.RFC3339)
			}
			if a.Attr(model.AttrValidUntil) != wantValid {
				t.Errorf("valid_until = %q; want %q", a.Attr(model.AttrValidUntil), wantValid)
			}
		})
	}
	// etl@ is only named in a backfill's conditional binding: its keys are
	// production keys and are not read; web@ has nothing to do with one.
	for _, who := range []string{"etl@", "web@"} {
		if f.count("serviceAccounts/"+who) != 0 {
			t.Errorf("keys of %s were read: %v", who, f.requests)
		}
	}
	if f.count("projects/-/serviceAccounts/ext@p-other.iam.gserviceaccount.com/keys") != 1 {
		t.Errorf("the declared account outside the projects should be asked through projects/-: %v", f.requests)
	}
	if f.count("/v1/projects/p-one/serviceAccounts?") != 3 {
		t.Errorf("want 3 pages of service accounts (5 accounts, 2 a page): %v", f.requests)
	}
}

func TestPermissionDeniedDegradesOneProject(t *testing.T) {
	f := estate(t)
	f.denied["p-two"] = true
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one", "p-two")
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect should go on past one project's 403: %v", err)
	}
	if len(sink.Errors) != 2 {
		t.Fatalf("want the policy and the account listing of p-two recorded, got %+v", sink.Errors)
	}
	scopes := map[string]bool{}
	for _, e := range sink.Errors {
		scopes[e.Scope] = true
		if !strings.Contains(e.Error, "403") {
			t.Errorf("error %+v: want the 403", e)
		}
	}
	if !scopes["p-two"] || !scopes["p-two/serviceAccounts"] {
		t.Errorf("error scopes %v; want the policy at p-two and the listing at p-two/serviceAccounts", scopes)
	}
	if sink.Artifact("gcpiam://p-one/bindings/roles/bigquery.dataEditor/serviceAccount:bf-1234-runner@p-one.iam.gserviceaccount.com") == nil {
		t.Errorf("p-one was not collected: %v", uris(sink))
	}
}

func TestNothingAnsweredFails(t *testing.T) {
	f := estate(t)
	f.denied["p-one"] = true
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	c.Principals = nil
	err := collectors.Collect(context.Background(), c, collectors.NewTestSink())
	if err == nil || !strings.Contains(err.Error(), "no unit answered (p-one, p-one/serviceAccounts)") {
		t.Fatalf("want a failed source, got %v", err)
	}
}

func TestRateLimitRetried(t *testing.T) {
	f := estate(t)
	f.throttle[":getIamPolicy"] = 2
	f.throttle["/v1/projects/p-one/serviceAccounts"] = 1
	srv := f.start()
	c := newCollector(t, srv.URL, "p-one")
	var waits []time.Duration
	c.retry.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	c.Concurrency = 1 // waits is appended without a lock
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if len(sink.Errors) != 0 {
		t.Fatalf("429s should be retried, got errors %+v", sink.Errors)
	}
	if len(waits) != 3 || waits[0] != 3*time.Second {
		t.Errorf("waits = %v; want three, honouring Retry-After: 3", waits)
	}
	if sink.Artifact("gcpiam://p-one/bindings/roles/bigquery.admin/user:Alice@example.com?condition=temporary+admin") == nil {
		t.Errorf("grant missing after retry: %v", uris(sink))
	}
}

func TestInitErrorsNameTheKey(t *testing.T) {
	tests := []struct {
		name string
		c    Collector
		want string
	}{
		{"no projects", Collector{}, "projects: missing"},
		{"resource name instead of id", Collector{Projects: []string{"projects/p"}}, "projects[0]"},
		{"principal without member", Collector{Projects: []string{"p"}, Principals: []Principal{{BackfillID: "BF-1"}}}, "principals[0].member"},
		{"no timeout", Collector{Projects: []string{"p"}}, "timeout: must be a positive duration"},
		{"negative timeout", Collector{Projects: []string{"p"}, Timeout: -1}, "timeout: must be a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Init(envAt(time.Now))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Init() = %v; want %q", err, tt.want)
			}
		})
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	// Init builds real clients from Application Default Credentials;
	// a dummy authorized-user file lets it do so without a network.
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c, ok := inst.Collector.(*Collector)
	if !ok || inst.Name != "gcp-iam" {
		t.Fatalf("decoded %T named %q", inst.Collector, inst.Name)
	}
	if len(c.Projects) != 2 || len(c.Principals) != 2 || c.Principals[0].BackfillID != "BF-1234" || c.Concurrency != 8 || c.crm == nil {
		t.Errorf("decoded %+v", c)
	}
}

func TestUnknownKeyRejected(t *testing.T) {
	_, err := collectors.Decode(map[string]any{"type": "gcpiam", "projects": []any{"p"}, "principal": "x"}, collectors.Env{})
	if err == nil || !strings.Contains(err.Error(), "principal") {
		t.Fatalf("want the unknown key named, got %v", err)
	}
}

func uris(s *collectors.TestSink) []string {
	var out []string
	for _, a := range s.Artifacts {
		out = append(out, a.URI)
	}
	return out
}
