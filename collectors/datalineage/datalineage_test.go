package datalineage

import (
	"context"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"google.golang.org/grpc/codes"
)

const (
	us      = "projects/p-one/locations/us"
	eu      = "projects/p-one/locations/eu"
	orders  = "bigquery:p-one.sales.orders"
	revenue = "bigquery:p-one.finance.daily_revenue"
	agg     = "bigquery:p-one.dash.revenue_agg"
)

var (
	jan15 = time.Date(2026, 1, 15, 3, 0, 0, 0, time.UTC)
	jan21 = time.Date(2026, 1, 21, 4, 5, 6, 0, time.UTC)
	feb2  = time.Date(2026, 2, 2, 6, 0, 0, 0, time.UTC)
)

// graph: orders -> daily_revenue (revenue_daily) -> revenue_agg
// (dash_agg), a link back from the aggregate to orders (a cycle), and in
// eu a copy of orders made by an export.
func graph(f *fakeLineage) {
	f.link(us, "revenue_daily", orders, revenue)
	f.link(us, "dash_agg", revenue, agg)
	f.link(us, "feedback", agg, orders)
	f.link(us, "unrelated", "bigquery:p-one.hr.people", "bigquery:p-one.hr.people_v")
	// revenue_daily: a run still going (newest), then two completed; the
	// first page (two runs) already holds the answer.
	f.run(us, "revenue_daily", lineagepb.Run_STARTED, time.Time{})
	f.run(us, "revenue_daily", lineagepb.Run_COMPLETED, jan21)
	f.run(us, "revenue_daily", lineagepb.Run_COMPLETED, jan15)
	// dash_agg: its first page has none completed.
	f.run(us, "dash_agg", lineagepb.Run_FAILED, feb2)
	f.run(us, "dash_agg", lineagepb.Run_ABORTED, feb2)
	f.run(us, "dash_agg", lineagepb.Run_COMPLETED, jan21)
	f.link(eu, "export", orders, "bigquery:p-one.sales_eu.orders_copy")
}

func collect(t *testing.T, c *Collector) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return sink
}

func edgeList(sink *collectors.TestSink) string {
	var out []string
	for _, e := range sink.Edges {
		out = append(out, e.Parent+" -> "+e.Child+" via "+e.Via+" @"+e.Scope)
	}
	return strings.Join(out, "\n")
}

func TestDownstreamEdgesAndBuilds(t *testing.T) {
	f := newFake()
	graph(f)
	c := newCollector(t, f.serve(t), []string{"p-one"}, []string{"us"}, orders)
	sink := collect(t, c)
	if len(sink.Errors) != 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	want := strings.Join([]string{
		"p-one.sales.orders -> p-one.finance.daily_revenue via " + us + "/processes/revenue_daily @p-one/us",
		"p-one.finance.daily_revenue -> p-one.dash.revenue_agg via " + us + "/processes/dash_agg @p-one/us",
		"p-one.dash.revenue_agg -> p-one.sales.orders via " + us + "/processes/feedback @p-one/us",
	}, "\n")
	if got := edgeList(sink); got != want {
		t.Errorf("edges:\n%s\nwant:\n%s", got, want)
	}
	for _, e := range sink.Edges {
		if e.System != "datalineage" {
			t.Errorf("edge system %q", e.System)
		}
	}
	// Each entity searched once, in the unit's parent, from the table's
	// fully qualified name; the cycle back to orders is not searched again.
	var sources []string
	for _, r := range f.searches {
		if r.GetParent() != us {
			t.Errorf("search in %q; want %s", r.GetParent(), us)
		}
		sources = append(sources, r.GetSource().GetFullyQualifiedName())
	}
	if got := strings.Join(sources, ","); got != orders+","+revenue+","+agg {
		t.Errorf("searched %s", got)
	}
	builds := map[string]model.Build{}
	for _, b := range sink.Builds {
		builds[b.Table] = b
	}
	if b := builds["p-one.finance.daily_revenue"]; b.Node != "revenue_daily" || !b.At.Equal(jan21) || b.Status != "completed" || b.Scope != "p-one/us/runs" || b.System != "datalineage" {
		t.Errorf("daily_revenue build %+v; want revenue_daily, completed at %s, scope p-one/us/runs", b, jan21)
	}
	if b := builds["p-one.dash.revenue_agg"]; b.Node != "dash_agg" || !b.At.Equal(jan21) {
		t.Errorf("revenue_agg build %+v; want dash_agg's last completed run (%s), not its later failures", b, jan21)
	}
	if len(sink.Builds) != 3 {
		t.Errorf("builds %+v; want daily_revenue, revenue_agg and orders", sink.Builds)
	}
	// revenue_daily's first page of runs answered; dash_agg needed two.
	pages := map[string]int{}
	for _, r := range f.runCalls {
		pages[r[:strings.Index(r, "?")]]++
	}
	if pages[us+"/processes/revenue_daily"] != 1 || pages[us+"/processes/dash_agg"] != 2 {
		t.Errorf("run pages read: %v", pages)
	}
	if len(f.batches) != 2 { // three processes, two a page
		t.Errorf("process search pages: %d; want 2", len(f.batches))
	}
	for _, b := range f.batches {
		if len(b.GetLinks()) != 3 || b.GetParent() != us {
			t.Errorf("process search: %v", b)
		}
	}
}

func TestMaxDepth(t *testing.T) {
	f := newFake()
	graph(f)
	c := newCollector(t, f.serve(t), []string{"p-one"}, []string{"us"}, orders)
	c.MaxDepth = 1
	c.Builds = false
	sink := collect(t, c)
	if len(sink.Errors) != 0 || len(sink.Edges) != 1 || sink.Edges[0].Child != "p-one.finance.daily_revenue" || len(f.searches) != 1 {
		t.Fatalf("depth 1: errors %v, edges\n%s\nsearches %d", sink.Errors, edgeList(sink), len(f.searches))
	}
	if sink.Edges[0].Via != us+"/links/l1" || len(sink.Builds) != 0 || len(f.batches) != 0 {
		t.Errorf("without builds, Via is the link (%q) and no process is read", sink.Edges[0].Via)
	}
}

// A location that refuses is an error there; the other location answers.
func TestFailingLocationStaysInItsUnit(t *testing.T) {
	f := newFake()
	graph(f)
	f.fail[eu] = codes.PermissionDenied
	c := newCollector(t, f.serve(t), []string{"p-one"}, []string{"us", "eu"}, orders)
	sink := collect(t, c)
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-one/eu" || !strings.Contains(sink.Errors[0].Error, "PermissionDenied") {
		t.Fatalf("errors %+v; want one PermissionDenied at p-one/eu", sink.Errors)
	}
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	if cov.Answered("p-one/eu") || !cov.Answered("p-one/us") || !cov.Answered("p-one/us/runs") {
		t.Error("only p-one/eu should count as not answered")
	}
	if len(sink.Edges) != 3 {
		t.Errorf("us edges:\n%s", edgeList(sink))
	}
}

// Runs that cannot be read cost the builds (at the runs unit), not the
// edges.
func TestFailingRunsStayInTheRunsUnit(t *testing.T) {
	f := newFake()
	graph(f)
	f.fail[us+"/processes/dash_agg/runs"] = codes.Internal
	c := newCollector(t, f.serve(t), []string{"p-one"}, []string{"us"}, orders)
	sink := collect(t, c)
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-one/us/runs" {
		t.Fatalf("errors %+v; want one at p-one/us/runs", sink.Errors)
	}
	if len(sink.Edges) != 3 || len(sink.Builds) != 0 {
		t.Errorf("edges %d (want 3), builds %+v (want none: part of them did not answer)", len(sink.Edges), sink.Builds)
	}
}

func TestStalledServerEndsWithinTheDeadline(t *testing.T) {
	f := newFake()
	graph(f)
	f.stall[eu] = true
	c := newCollector(t, f.serve(t), []string{"p-one"}, []string{"eu", "us"}, orders)
	c.Timeout = time.Second
	start := time.Now()
	sink := collect(t, c)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Collect took %s; the per-call timeout is 1s", d)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-one/eu" || !strings.Contains(sink.Errors[0].Error, "no answer within 1s") {
		t.Fatalf("errors %+v; want a timeout at p-one/eu", sink.Errors)
	}
	if len(sink.Edges) != 3 {
		t.Errorf("us was not read after the stalled location:\n%s", edgeList(sink))
	}
}

func TestPagerThatDoesNotAdvance(t *testing.T) {
	f := newFake()
	graph(f)
	f.stuck[us] = true
	c := newCollector(t, f.serve(t), []string{"p-one"}, []string{"us", "eu"}, orders)
	sink := collect(t, c)
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-one/us" || !strings.Contains(sink.Errors[0].Error, "listing is incomplete") {
		t.Fatalf("errors %+v; want the stuck listing at p-one/us", sink.Errors)
	}
	if e := sink.Errors[0].Error; strings.Count(e, us) != 1 || strings.Count(e, orders) != 1 {
		t.Errorf("error %q: want the location and the table named once each", e)
	}
	if n := len(f.searches); n > 5 {
		t.Errorf("%d searches; the pager should stop at the repeat", n)
	}
	for _, e := range sink.Edges {
		if e.Scope != "p-one/eu" {
			t.Errorf("edge from the stuck unit: %+v", e)
		}
	}
}

func TestMaxLinksIsAnError(t *testing.T) {
	f := newFake()
	graph(f)
	c := newCollector(t, f.serve(t), []string{"p-one"}, []string{"us"}, orders)
	c.MaxLinks = 2
	sink := collectors.NewTestSink()
	err := collectors.Collect(context.Background(), c, sink)
	if err == nil || !strings.Contains(err.Error(), "more than max_links (2)") {
		t.Fatalf("Collect: %v; want the cap (the only unit)", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-one/us" || len(sink.Edges) != 0 {
		t.Errorf("errors %+v, edges %d: a cut graph must not be emitted", sink.Errors, len(sink.Edges))
	}
}

func TestConfigErrors(t *testing.T) {
	base := func() *Collector {
		return &Collector{Projects: []string{"p"}, Locations: []string{"us"}, Tables: []string{orders}, Timeout: time.Second, client: &stubAPI{}}
	}
	for _, tt := range []struct {
		name, want string
		edit       func(*Collector)
	}{
		{"no tables", "tables: missing", func(c *Collector) { c.Tables = nil }},
		{"bad table", "tables[0]", func(c *Collector) { c.Tables = []string{"orders"} }},
		{"bad location", "locations[0]", func(c *Collector) { c.Locations = []string{"projects/p/locations/us"} }},
		{"depth", "max_depth", func(c *Collector) { c.MaxDepth = 500 }},
		{"links", "max_links", func(c *Collector) { c.MaxLinks = -1 }},
		{"no projects", "projects", func(c *Collector) { c.Projects = nil }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.edit(c)
			if err := c.Init(collectors.Env{Source: "datalineage", Selector: correlate.MustSelector(), Now: time.Now}); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Init: %v; want an error starting %q", err, tt.want)
			}
		})
	}
}

// stubAPI stands for a client handed in; config checks never call it.
type stubAPI struct{ api }

func TestSampleConfigDecodes(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c := inst.Collector.(*Collector)
	if c.MaxDepth != 5 || c.MaxLinks != 10000 || !c.Builds || c.Tables[0] != "bigquery:analytics-prod.sales.orders" {
		t.Errorf("decoded %+v", c)
	}
	c.Close()
}

func TestBadTimeoutsRejected(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "testdata/fake-adc.json")
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "datalineage", "projects": []any{"p"}, "tables": []any{orders}})
}

// An answer over the 16 MiB cap is refused at its unit, not read whole.
func TestHugeAnswerRefused(t *testing.T) {
	f := newFake()
	graph(f)
	f.link(eu, "huge", orders, "bigquery:p-one.x."+strings.Repeat("y", 17<<20))
	c := newCollector(t, f.serve(t), []string{"p-one"}, []string{"eu", "us"}, orders)
	sink := collect(t, c)
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-one/eu" || !strings.Contains(sink.Errors[0].Error, "larger than max") {
		t.Fatalf("errors %+v; want the size cap at p-one/eu", sink.Errors)
	}
	if len(sink.Errors[0].Error) > 2000 || len(sink.Edges) != 3 {
		t.Errorf("error of %d bytes; %d edges (want us's 3)", len(sink.Errors[0].Error), len(sink.Edges))
	}
}

// Each unit says what it read: the links followed from the tables (the
// unrelated hr link is not reached), and the processes behind them.
func TestReadsOfEveryUnit(t *testing.T) {
	f := newFake()
	graph(f)
	c := newCollector(t, f.serve(t), []string{"p-one"}, []string{"us", "eu"}, orders)
	sink := collect(t, c)
	for _, r := range []struct {
		scope, what string
		read        int
	}{
		{"p-one/us", "links", 3},
		{"p-one/us/runs", "processes", 3},
		{"p-one/eu", "links", 1},
		{"p-one/eu/runs", "processes", 1},
	} {
		if n, p := sink.Read(r.scope, r.what); n != r.read || p != 0 {
			t.Errorf("%s: read %d %s (%d in part), want %d", r.scope, n, r.what, p, r.read)
		}
	}
}
