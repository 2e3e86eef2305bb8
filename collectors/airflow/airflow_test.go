package airflow

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"gopkg.in/yaml.v3"
)

var testNow = time.Date(2026, 10, 15, 0, 0, 0, 0, time.UTC)

// env is what the audit hands a source named source ("": no name), on the
// tests' clock.
func env(source string) collectors.Env {
	return collectors.Env{Source: source, Selector: correlate.MustSelector(), Now: func() time.Time { return testNow }}
}

// sleeps records the waits Retry asked for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return nil
}

func newCollector(t *testing.T, f *fakeAirflow, apiVersion string) (*Airflow, *sleeps) {
	t.Helper()
	return newCollectorWith(t, f, apiVersion, nil)
}

// newCollectorWith applies opt to the configured collector before Init.
func newCollectorWith(t *testing.T, f *fakeAirflow, apiVersion string, opt func(*Airflow)) (*Airflow, *sleeps) {
	t.Helper()
	t.Setenv("TEST_AIRFLOW_PASSWORD", f.password)
	s := &sleeps{}
	c := New()
	c.URL = f.URL()
	c.APIVersion = apiVersion
	c.Username = f.user
	c.PasswordEnv = "TEST_AIRFLOW_PASSWORD"
	c.HTTPClient = f.srv.Client()
	c.Retry = remote.RetryPolicy{Sleep: s.sleep}
	if opt != nil {
		opt(c)
	}
	if err := c.Init(env("airflow-test")); err != nil {
		t.Fatal(err)
	}
	return c, s
}

func collect(t *testing.T, c *Airflow) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return sorted(sink)
}

// sorted puts what a collection reported in a stable order, as the audit
// does (collectors.Sort): the DAGs are read concurrently, each its own
// unit, so they report in any order.
func sorted(sink *collectors.TestSink) *collectors.TestSink {
	slices.SortStableFunc(sink.Artifacts, func(a, b model.Artifact) int { return strings.Compare(a.URI, b.URI) })
	slices.SortStableFunc(sink.Backfills, func(a, b model.Backfill) int { return strings.Compare(a.Source.Path, b.Source.Path) })
	slices.SortStableFunc(sink.Errors, func(a, b model.ScopeError) int {
		return cmp.Or(strings.Compare(a.Scope, b.Scope), strings.Compare(a.Error, b.Error))
	})
	return sink
}

func uris(sink *collectors.TestSink, kind model.Kind) []string {
	var out []string
	for _, a := range sink.Artifacts {
		if kind == "" || a.Kind == kind {
			out = append(out, a.URI)
		}
	}
	return out
}

func mustArtifact(t *testing.T, sink *collectors.TestSink, uri string) *model.Artifact {
	t.Helper()
	a := sink.Artifact(uri)
	if a == nil {
		t.Fatalf("no artifact %s; have %v", uri, uris(sink, ""))
	}
	return a
}

const base = "airflow://airflow-test/dags/"

// The DAGs both versions must yield: backfill DAGs by tag (key=value,
// key:value, bare tag matching the name pattern) and the one catch-up risk.
var wantDAGs = []string{
	base + "bf_1234_refund_replay",
	base + "bf_3100_ledger_replay",
	base + "daily_revenue",
	base + "replay_orders_adhoc",
}

func TestCollectAirflow2(t *testing.T) {
	f := newFakeAirflow(t, "1")
	c, _ := newCollector(t, f, "1")
	sink := collect(t, c)

	if got := uris(sink, model.KindSchedulerJob); !equal(got, wantDAGs) {
		t.Errorf("scheduler jobs:\n got %v\nwant %v", got, wantDAGs)
	}
	checkDAGs(t, sink)
	wantRuns := []string{
		base + "bf_1234_refund_replay/dagRuns/backfill__2026-06-01T00:00:00+00:00",
		base + "bf_1234_refund_replay/dagRuns/backfill__2026-06-02T00:00:00+00:00",
		base + "bf_3100_ledger_replay/dagRuns/backfill__2026-09-28T00:00:00+00:00",
		base + "bf_3100_ledger_replay/dagRuns/backfill__2026-09-29T00:00:00+00:00",
		base + "bf_3100_ledger_replay/dagRuns/backfill__2026-09-30T00:00:00+00:00",
		base + "bf_3100_ledger_replay/dagRuns/scheduled__2026-10-14T00:00:00+00:00",
		base + "daily_orders/dagRuns/backfill__2026-03-01T00:00:00+00:00",
		base + "daily_revenue/dagRuns/backfill__2025-06-01T00:00:00+00:00",
	}
	if got := uris(sink, model.KindJobRun); !equal(got, wantRuns) {
		t.Errorf("runs:\n got %v\nwant %v", got, wantRuns)
	}
	// Airflow 2 has no backfill objects; its run listing is bounded by
	// updated_at_gte and filtered by run type on our side.
	if len(sink.Backfills) != 0 {
		t.Errorf("backfills from Airflow 2: %v", sink.Backfills)
	}
	runCalls := f.seen("/api/v1/dags/~/dagRuns")
	if len(runCalls) == 0 || runCalls[0].URL.Query().Get("updated_at_gte") != "2026-07-17T00:00:00Z" {
		t.Errorf("run listing not bounded by run_lookback: %v", runCalls)
	}
	if len(sink.Errors) != 0 {
		t.Errorf("errors: %v", sink.Errors)
	}
	// daily_orders has no backfill object on Airflow 2 to name its id.
	if a := mustArtifact(t, sink, base+"daily_orders/dagRuns/backfill__2026-03-01T00:00:00+00:00"); a.BackfillID != "" {
		t.Errorf("daily_orders run tied to %q without evidence", a.BackfillID)
	}
}

func TestCollectAirflow3(t *testing.T) {
	f := newFakeAirflow(t, "2")
	c, _ := newCollector(t, f, "2")
	sink := collect(t, c)

	if got := uris(sink, model.KindSchedulerJob); !equal(got, wantDAGs) {
		t.Errorf("scheduler jobs:\n got %v\nwant %v", got, wantDAGs)
	}
	checkDAGs(t, sink)
	if got := len(uris(sink, model.KindJobRun)); got != 8 {
		t.Errorf("got %d runs, want 8: %v", got, uris(sink, model.KindJobRun))
	}
	for _, r := range f.seen("/api/v2/dags/~/dagRuns") {
		q := r.URL.Query()
		if q.Get("run_type") != "backfill" && strings.Join(q["state"], ",") != "queued,running" {
			t.Errorf("run listing neither by run_type nor by state: %s", r.URL.RawQuery)
		}
	}
	if f.tokens != 1 {
		t.Errorf("minted %d tokens, want 1 for the whole collection", f.tokens)
	}

	t.Run("run tied to its backfill object", func(t *testing.T) {
		a := mustArtifact(t, sink, base+"daily_orders/dagRuns/backfill__2026-03-01T00:00:00+00:00")
		if a.BackfillID != "BF-5000" || a.Attr(AttrAirflowBackfillID) != "11" || a.Attr(model.AttrMaxActiveRuns) != "2" {
			t.Errorf("daily_orders backfill run: id %q attrs %v", a.BackfillID, a.Attributes)
		}
		a = mustArtifact(t, sink, base+"bf_3100_ledger_replay/dagRuns/backfill__2026-09-30T00:00:00+00:00")
		want := map[string]string{
			model.AttrRunType: "backfill", model.AttrRunState: "queued", model.AttrPool: "default_pool",
			model.AttrMaxActiveRuns: "16", AttrLogicalDate: "2026-09-30T00:00:00Z",
			AttrDataIntervalStart: "2026-09-30T00:00:00Z", AttrDataIntervalEnd: "2026-10-01T00:00:00Z",
		}
		for k, v := range want {
			if a.Attr(k) != v {
				t.Errorf("%s = %q, want %q", k, a.Attr(k), v)
			}
		}
		if a.BackfillID != "BF-3100" || a.State != model.StateActive || a.Scope != "dags/bf_3100_ledger_replay/runs" {
			t.Errorf("queued run: id %q state %q scope %q", a.BackfillID, a.State, a.Scope)
		}
	})

	t.Run("backfill objects", func(t *testing.T) {
		got := map[string]model.Backfill{}
		for _, b := range sink.Backfills {
			got[b.ID] = b
		}
		if len(sink.Backfills) != 4 {
			t.Fatalf("got %d backfills, want 4 (the one with no id as unplanned): %+v", len(sink.Backfills), sink.Backfills)
		}
		b := got["BF-1234"]
		if b.Origin != model.OriginScheduler || b.Status != model.StatusReplayed || b.JobID != "bf_1234_refund_replay" ||
			b.Concurrency != 4 || b.Pool != "backfill_pool" || b.Owner != "alice" ||
			!b.Range.Start.Equal(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)) ||
			!b.Range.End.Equal(time.Date(2026, 8, 29, 0, 0, 0, 0, time.UTC)) ||
			!b.Timeline.CompletedAt.Equal(time.Date(2026, 9, 20, 10, 0, 0, 0, time.UTC)) {
			t.Errorf("BF-1234: %+v", b)
		}
		b = got["BF-3100"]
		if b.Status != model.StatusRunning || !b.DependsOnPast || b.Concurrency != 16 || b.Owner != "" ||
			!strings.Contains(strings.Join(b.Notes, "\n"), "reprocess_behavior=failed") ||
			!strings.Contains(strings.Join(b.Notes, "\n"), "paused") {
			t.Errorf("BF-3100: %+v", b)
		}
		if b := got["BF-5000"]; b.JobID != "daily_orders" || b.Pool != "orders_pool" {
			t.Errorf("BF-5000 (id from dag_run_conf): %+v", b)
		}
		checkSchedulerViews(t, got)
	})
}

// checkDAGs holds for both API versions.
func checkDAGs(t *testing.T, sink *collectors.TestSink) {
	t.Helper()
	tests := []struct {
		dag, id, how, state, owner string
		attrs                      map[string]string
	}{
		{"bf_1234_refund_replay", "BF-1234", "label", "paused", "alice", map[string]string{
			model.AttrCatchup: "false", model.AttrStartDate: "2026-06-01T00:00:00Z", model.AttrMaxActiveRuns: "4",
			model.AttrPool: "backfill_pool", AttrPaused: "true"}},
		{"bf_3100_ledger_replay", "BF-3100", "label", "enabled", "", map[string]string{
			model.AttrCatchup: "true", model.AttrSchedule: "@daily", model.AttrPool: "default_pool", AttrPaused: "false"}},
		{"daily_revenue", "", "", "enabled", "bob", map[string]string{
			model.AttrCatchup: "true", model.AttrStartDate: "2024-01-01T00:00:00Z", model.AttrSchedule: "0 2 * * *",
			model.AttrMaxActiveRuns: "1"}},
		{"replay_orders_adhoc", "bf-4242", "label", "enabled", "carol", nil},
	}
	for _, tt := range tests {
		t.Run(tt.dag, func(t *testing.T) {
			a := mustArtifact(t, sink, base+tt.dag)
			if a.BackfillID != tt.id || a.Correlation != tt.how || string(a.State) != tt.state || a.Owner != tt.owner {
				t.Errorf("id %q how %q state %q owner %q; want %q %q %q %q",
					a.BackfillID, a.Correlation, a.State, a.Owner, tt.id, tt.how, tt.state, tt.owner)
			}
			if a.Kind != model.KindSchedulerJob || a.Name != tt.dag || a.Scope != "dags/"+tt.dag {
				t.Errorf("kind %q name %q scope %q", a.Kind, a.Name, a.Scope)
			}
			for k, v := range tt.attrs {
				if a.Attr(k) != v {
					t.Errorf("%s = %q, want %q", k, a.Attr(k), v)
				}
			}
		})
	}
}

func TestAutoDetectsVersion(t *testing.T) {
	for _, version := range []string{"1", "2"} {
		t.Run("airflow api v"+version, func(t *testing.T) {
			f := newFakeAirflow(t, version)
			c, _ := newCollector(t, f, "auto")
			sink := collect(t, c)
			if got := uris(sink, model.KindSchedulerJob); !equal(got, wantDAGs) {
				t.Errorf("scheduler jobs: %v", got)
			}
			if n := len(f.seen("/api/v" + version + "/dags")); n != 3 {
				t.Errorf("%d DAG pages read from v%s, want 3 (8 DAGs, 3 a page)", n, version)
			}
		})
	}
}

func TestPagesToTotalEntries(t *testing.T) {
	f := newFakeAirflow(t, "2")
	c, _ := newCollector(t, f, "2")
	collect(t, c)
	var offsets []string
	for _, r := range f.seen("/api/v2/dags") {
		if r.URL.Query().Get("limit") != "100" {
			t.Errorf("asked limit %s, want the maximum page size 100", r.URL.Query().Get("limit"))
		}
		offsets = append(offsets, r.URL.Query().Get("offset"))
	}
	// The server capped pages at 3: the collector follows the items it got
	// until total_entries (8), not the limit it asked.
	if strings.Join(offsets, ",") != "0,3,6" {
		t.Errorf("offsets %v, want 0,3,6", offsets)
	}
}

func TestBadPassword(t *testing.T) {
	for _, version := range []string{"1", "2"} {
		t.Run("v"+version, func(t *testing.T) {
			f := newFakeAirflow(t, version)
			c, _ := newCollector(t, f, version)
			c.password = "wrong-pw-123"
			err := collectors.Collect(context.Background(), c, collectors.NewTestSink())
			if err == nil {
				t.Fatal("Collect succeeded with a bad password")
			}
			msg := err.Error()
			for _, want := range []string{f.URL(), "401", "TEST_AIRFLOW_PASSWORD", `"bfaudit"`} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not name %q", msg, want)
				}
			}
			for _, secret := range []string{"wrong-pw-123", f.password} {
				if strings.Contains(msg, secret) {
					t.Errorf("error leaks a password: %q", msg)
				}
			}
		})
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	f := newFakeAirflow(t, "2")
	f.fail["/api/v2/dags"] = []int{503}
	f.failHdr["/api/v2/dags"] = "7"
	c, s := newCollector(t, f, "2")
	sink := collect(t, c)
	if len(s.d) != 1 || s.d[0] != 7*time.Second {
		t.Errorf("waits %v, want one of 7s from Retry-After", s.d)
	}
	if got := uris(sink, model.KindSchedulerJob); !equal(got, wantDAGs) {
		t.Errorf("after the retry: %v", got)
	}
}

func TestTokenRefreshedWhenExpired(t *testing.T) {
	f := newFakeAirflow(t, "2")
	f.expireAt = 2
	c, _ := newCollector(t, f, "2")
	c.Concurrency = 1
	sink := collect(t, c)
	if f.tokens != 2 {
		t.Errorf("minted %d tokens, want 2 (one refresh)", f.tokens)
	}
	if len(sink.Errors) != 0 {
		t.Errorf("errors: %v", sink.Errors)
	}
}

func TestPartialFailureDegradesScope(t *testing.T) {
	f := newFakeAirflow(t, "2")
	f.failAll["/api/v2/dags/daily_revenue/details"] = 500
	f.failAll["/api/v2/backfills"] = 403
	c, s := newCollector(t, f, "2")
	sink := collect(t, c)

	scopes := map[string]bool{}
	for _, e := range sink.Errors {
		scopes[e.Scope] = true
		if !strings.Contains(e.Error, f.URL()) {
			t.Errorf("error does not name the source: %s", e.Error)
		}
	}
	for _, want := range []string{"dags/daily_revenue", "dags/bf_1234_refund_replay/backfills", "dags/bf_1234_refund_replay/runs"} {
		if !scopes[want] {
			t.Errorf("no error in scope %s: %v", want, sink.Errors)
		}
	}
	// The DAG listing and the DAGs whose own calls answered still count.
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	for scope, want := range map[string]bool{
		"dags": true, "dags/bf_1234_refund_replay": true, "dags/daily_revenue": false,
		"dags/daily_revenue/runs": false, "dags/bf_1234_refund_replay/backfills/1": false,
	} {
		if got := cov.Answered(scope); got != want {
			t.Errorf("answered(%s) = %v, want %v", scope, got, want)
		}
	}
	if len(s.d) == 0 {
		t.Error("500 on details was not retried")
	}
	// The failed details hide daily_revenue's catch-up risk; every other
	// DAG and every run is still reported.
	if sink.Artifact(base+"daily_revenue") != nil {
		t.Error("daily_revenue reported without its details")
	}
	if sink.Artifact(base+"bf_1234_refund_replay") == nil || len(uris(sink, model.KindJobRun)) != 8 {
		t.Errorf("collection did not go on: %v", uris(sink, ""))
	}
	if len(sink.Backfills) != 0 {
		t.Errorf("backfills despite 403: %v", sink.Backfills)
	}
}

func TestExportDir(t *testing.T) {
	c := New()
	c.ExportDir = "airflow" // relative to the config file, as in bfaudit.yaml
	e := env("scheduler")
	e.BaseDir = "../../examples/quickstart"
	if err := c.Init(e); err != nil {
		t.Fatal(err)
	}
	sink := collect(t, c)
	const b = "airflow://scheduler/dags/"
	tests := []struct {
		uri, id string
		state   model.State
	}{
		{b + "bf_1234_refund_replay", "BF-1234", model.StatePaused},
		{b + "bf_3100_ledger_replay", "BF-3100", model.StateEnabled},
		{b + "daily_revenue", "", model.StateEnabled},
	}
	for _, tt := range tests {
		a := mustArtifact(t, sink, tt.uri)
		if a.BackfillID != tt.id || a.State != tt.state {
			t.Errorf("%s: id %q state %q, want %q %q", tt.uri, a.BackfillID, a.State, tt.id, tt.state)
		}
	}
	if got := uris(sink, model.KindSchedulerJob); len(got) != 3 {
		t.Errorf("scheduler jobs %v, want the two backfill DAGs and daily_revenue", got)
	}
	queued := 0
	for _, a := range sink.Artifacts {
		if a.Kind == model.KindJobRun && a.BackfillID == "BF-3100" && a.Attr(model.AttrRunState) == "queued" {
			queued++
		}
	}
	if queued == 0 {
		t.Error("no queued BF-3100 runs")
	}
	ids := map[string]model.Status{}
	for _, bf := range sink.Backfills {
		ids[bf.ID] = bf.Status
	}
	// The third is the backfill of daily_revenue someone started with no
	// plan id.
	if ids["BF-1234"] != model.StatusReplayed || ids["BF-3100"] != model.StatusRunning ||
		ids["airflow:scheduler:daily_revenue:63"] != model.StatusRunning || len(ids) != 3 {
		t.Errorf("backfills %v", ids)
	}
	if len(sink.Errors) != 0 {
		t.Errorf("errors: %v", sink.Errors)
	}
}

func TestInitErrors(t *testing.T) {
	t.Setenv("EMPTY_PW", "")
	tests := []struct {
		name string
		set  func(c *Airflow)
		want string
	}{
		{"no url", func(c *Airflow) {}, "url: missing"},
		{"bad version", func(c *Airflow) { c.URL, c.APIVersion = "https://a.example", "3" }, "api_version"},
		{"credentials in url", func(c *Airflow) { c.URL = "https://u:p@a.example" }, "must not carry credentials"},
		{"unset password", func(c *Airflow) { c.URL, c.Username, c.PasswordEnv = "https://a.example", "u", "EMPTY_PW" }, "EMPTY_PW"},
		{"password without user", func(c *Airflow) {
			t.Setenv("SOME_PW", "x")
			c.URL, c.PasswordEnv = "https://a.example", "SOME_PW"
		}, "username: missing"},
		{"url and export", func(c *Airflow) { c.URL, c.ExportDir = "https://a.example", "." }, "set one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			tt.set(c)
			err := c.Init(env(""))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Init() = %v, want an error with %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "u:p@") {
				t.Errorf("error leaks URL credentials: %v", err)
			}
		})
	}
}

func TestTagLabels(t *testing.T) {
	tests := []struct {
		tags []string
		want map[string]string
	}{
		{[]string{"backfill_id=BF-1234"}, map[string]string{"backfill_id": "BF-1234"}},
		{[]string{"backfill:BF-9", "finance"}, map[string]string{"backfill": "BF-9", "finance": ""}},
		{[]string{" team = data "}, map[string]string{"team": "data"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.tags, ","), func(t *testing.T) {
			var in []tagJSON
			for _, s := range tt.tags {
				in = append(in, tagJSON{Name: s})
			}
			got := tagLabels(in)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	t.Setenv("AIRFLOW_PASSWORD", "x")
	var entries []map[string]any
	if err := yaml.Unmarshal([]byte(sampleConfig), &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("sample has %d entries", len(entries))
	}
	inst, err := collectors.Decode(entries[0], collectors.Env{})
	if err != nil {
		t.Fatalf("sample does not decode: %v", err)
	}
	c := inst.Collector.(*Airflow)
	if inst.Name != "airflow-prod" || c.CatchupMaxAge != 30*24*time.Hour || c.APIVersion != "auto" {
		t.Errorf("decoded %+v", c)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestExportDirMissing(t *testing.T) {
	c := New()
	c.ExportDir = "/nonexistent/airflow-export"
	if err := c.Init(env("")); err != nil {
		t.Fatal(err)
	}
	err := collectors.Collect(context.Background(), c, collectors.NewTestSink())
	if err == nil || !strings.Contains(err.Error(), "export_dir") || !strings.Contains(err.Error(), "/nonexistent/airflow-export") {
		t.Errorf("Collect() = %v, want an error naming export_dir and the path", err)
	}
}
