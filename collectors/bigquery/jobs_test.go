package bigquery

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// lineageCollector reads the job history of projects through the fake.
func lineageCollector(t *testing.T, f *fakeBQ, projects ...string) *Collector {
	t.Helper()
	srv := f.start()
	c := newCollector(t, srv.URL, projects...)
	c.jobs = nil
	c.Lineage = Lineage{Jobs: true, Region: "US"}
	if err := c.Init(testEnv()); err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	jan15 = time.Date(2026, 1, 15, 3, 0, 0, 0, time.UTC)
	jan21 = time.Date(2026, 1, 21, 4, 5, 6, 0, time.UTC)
)

// revenueHistory: two jobs rebuilt daily_revenue (the newer one MERGEd it
// from orders, reading itself and a script temp table); an anonymous
// result table was written too.
func revenueHistory(f *fakeBQ, project string) {
	f.history[project] = []string{
		jobRowJSON("job_merge_2", jan21, "MERGE", project+".analytics.daily_revenue",
			project+".raw.orders", project+".analytics.daily_revenue", project+"._script7f3.tmp_orders"),
		jobRowJSON("job_anon", jan20, "SELECT", project+"._0b1c2d.anon3f", project+".raw.orders"),
		jobRowJSON("job_insert_1", jan15, "INSERT", project+".analytics.daily_revenue", project+".raw.orders", project+".raw.refunds"),
	}
}

func TestJobHistoryLineage(t *testing.T) {
	f := estate(t)
	f.dryRunBytes = 10 << 20
	revenueHistory(f, "p-one")
	sink := collect(t, lineageCollector(t, f, "p-one"))
	if len(sink.Errors) != 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	scope := "p-one/jobs@region-us"
	var edges []string
	for _, e := range sink.Edges {
		if e.System != "bigquery" || e.Scope != scope {
			t.Errorf("edge %+v: want system bigquery, scope %s", e, scope)
		}
		edges = append(edges, e.Parent+" -> "+e.Child+" via "+e.Via)
	}
	want := "p-one.raw.orders -> p-one.analytics.daily_revenue via job_merge_2, " +
		"p-one.raw.refunds -> p-one.analytics.daily_revenue via job_insert_1"
	if got := strings.Join(edges, ", "); got != want {
		t.Errorf("edges:\n got %s\nwant %s", got, want)
	}
	if len(sink.Builds) != 1 {
		t.Fatalf("builds: %+v; want daily_revenue's only (the anonymous table is scratch)", sink.Builds)
	}
	b := sink.Builds[0]
	if b.Table != "p-one.analytics.daily_revenue" || b.Node != "job_merge_2" || !b.At.Equal(jan21) || b.Scope != scope || b.System != "bigquery" {
		t.Errorf("build %+v; want daily_revenue by job_merge_2 at %s", b, jan21)
	}
	if sink.Artifact("bigquery://p-one/analytics/orders_tmp") == nil {
		t.Error("the tables were not collected next to the history")
	}

	// The cost guard: a dry run of the same query, then the query capped.
	var dry, real map[string]any
	for _, b := range f.insertBodies {
		cfg, _ := b["configuration"].(map[string]any)
		q, _ := cfg["query"].(map[string]any)
		if sql, _ := q["query"].(string); strings.Contains(sql, "JOBS_BY_PROJECT") {
			dry = q
		}
	}
	for _, b := range f.queryBodies {
		if sql, _ := b["query"].(string); strings.Contains(sql, "JOBS_BY_PROJECT") {
			real = b
		}
	}
	if dry == nil || real == nil {
		t.Fatalf("want a dry run and a query of the job history; dry runs %v, queries %v", f.insertBodies, f.queryBodies)
	}
	if got := real["maximumBytesBilled"]; got != fmt.Sprint(oneGiB) {
		t.Errorf("maximumBytesBilled sent = %v; want %d", got, oneGiB)
	}
	if real["location"] != "us" {
		t.Errorf("location = %v; want us (the history's region)", real["location"])
	}
	sql := real["query"].(string)
	if !strings.Contains(sql, "FROM `p-one`.`region-us`.INFORMATION_SCHEMA.JOBS_BY_PROJECT") || !strings.Contains(sql, "@since") {
		t.Errorf("query does not read p-one's history with parameters:\n%s", sql)
	}
	params := fmt.Sprint(real["queryParameters"])
	since := now.Add(-30 * 24 * time.Hour) // default lookback, from the audit's clock
	if !strings.Contains(params, since.Format("2006-01-02 15:04:05")) || !strings.Contains(params, "50001") {
		t.Errorf("parameters %s; want since = %s (the audit's clock less 30d) and max_rows = 50001", params, since)
	}
}

// A project whose history cannot be read is an error at its jobs unit
// only: its tables, and the other project's history, are still read.
func TestJobHistoryFailureStaysInItsUnit(t *testing.T) {
	f := estate(t)
	f.datasets["p-two"] = []string{dsEntry("p-two", "misc", `{}`)}
	f.datasetBodies["p-two/misc"] = dsBody("p-two", "misc", `[]`)
	revenueHistory(f, "p-one")
	revenueHistory(f, "p-two")
	f.historyFail["p-one"] = 403
	sink := collect(t, lineageCollector(t, f, "p-one", "p-two"))
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-one/jobs@region-us" || !strings.Contains(sink.Errors[0].Error, "403") {
		t.Fatalf("errors %+v; want one 403 at p-one/jobs@region-us", sink.Errors)
	}
	cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
	if cov.Answered("p-one/jobs@region-us") || !cov.Answered("p-one") || !cov.Answered("p-one/analytics") || !cov.Answered("p-two/jobs@region-us") {
		t.Error("only p-one's history should count as not answered")
	}
	for _, e := range sink.Edges {
		if !strings.HasPrefix(e.Child, "p-two.") {
			t.Errorf("edge from the failed history: %+v", e)
		}
	}
	if len(sink.Edges) != 2 || len(sink.Builds) != 1 {
		t.Errorf("p-two's history: %d edges, %d builds; want 2 and 1", len(sink.Edges), len(sink.Builds))
	}
	if sink.Artifact("bigquery://p-one/analytics/orders_tmp") == nil {
		t.Error("p-one's tables were not collected")
	}
}

// A history the dry run says is over max_bytes_billed is not read.
func TestJobHistoryRefusedForCost(t *testing.T) {
	f := estate(t)
	revenueHistory(f, "p-one")
	f.dryRunBytes = 3 * oneGiB
	sink := collect(t, lineageCollector(t, f, "p-one"))
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-one/jobs@region-us" || !strings.Contains(sink.Errors[0].Error, "max_bytes_billed") {
		t.Fatalf("errors %+v; want a refusal at p-one/jobs@region-us", sink.Errors)
	}
	if len(f.queryBodies) != 0 || len(sink.Edges) != 0 || len(sink.Builds) != 0 {
		t.Errorf("the query ran (%d) or lineage was emitted (%d edges, %d builds)", len(f.queryBodies), len(sink.Edges), len(sink.Builds))
	}
}

// More jobs than max_rows is an error at the unit, not a truncated
// history (whose builds would look older than they are); exactly
// max_rows is fine.
func TestJobHistoryRowCap(t *testing.T) {
	for _, tt := range []struct {
		max     int
		wantErr bool
	}{{3, false}, {2, true}} {
		t.Run(fmt.Sprint("max_rows ", tt.max), func(t *testing.T) {
			f := estate(t)
			revenueHistory(f, "p-one")
			srv := f.start()
			c := newCollector(t, srv.URL, "p-one")
			c.jobs = nil
			c.Lineage = Lineage{Jobs: true, Region: "region-us", MaxRows: tt.max}
			if err := c.Init(testEnv()); err != nil {
				t.Fatal(err)
			}
			sink := collect(t, c)
			if !tt.wantErr {
				if len(sink.Errors) != 0 || len(sink.Builds) != 1 {
					t.Fatalf("errors %+v, builds %+v", sink.Errors, sink.Builds)
				}
				return
			}
			if len(sink.Errors) != 1 || sink.Errors[0].Scope != "p-one/jobs@region-us" || !strings.Contains(sink.Errors[0].Error, "more than lineage.max_rows (2)") {
				t.Fatalf("errors %+v; want the cap at p-one/jobs@region-us", sink.Errors)
			}
			if len(sink.Edges) != 0 || len(sink.Builds) != 0 {
				t.Errorf("a truncated history was emitted: %+v %+v", sink.Edges, sink.Builds)
			}
		})
	}
}

func TestJobHistoryConfig(t *testing.T) {
	for _, tt := range []struct {
		name    string
		edit    func(*Collector)
		wantErr string
	}{
		{"region", func(c *Collector) { c.Lineage.Region = "us`; DROP TABLE x; --" }, "lineage.region"},
		{"project", func(c *Collector) { c.Projects = []string{"p-one`.x"} }, "projects[0]"},
		{"lookback", func(c *Collector) { c.Lineage.Lookback = -time.Hour }, "lineage.lookback"},
		{"max_rows", func(c *Collector) { c.Lineage.MaxRows = -1 }, "lineage.max_rows"},
		{"cost guard", func(c *Collector) { c.MaxBytesBilled = 0 }, "max_bytes_billed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &Collector{Projects: []string{"p-one"}, Timeout: time.Second, MaxBytesBilled: oneGiB, Lineage: Lineage{Jobs: true}}
			tt.edit(c)
			err := c.Init(envAt(time.Now))
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("Init: %v; want an error naming %s", err, tt.wantErr)
			}
		})
	}
}

// A job labelled with a backfill id is the replay's run: the table it
// wrote is also a build of that backfill, which stands for the plan's
// targets when the plan names none.
func TestJobHistoryReplayRuns(t *testing.T) {
	f := estate(t)
	f.dryRunBytes = 10 << 20
	f.history["p-one"] = []string{
		jobRowJSON("job_daily", jan21, "MERGE", "p-one.analytics.daily_revenue", "p-one.analytics.refunds"),
		labelledJobRowJSON("job_replay_2", jan20, "MERGE", "p-one.analytics.refunds", []string{"backfill_id=bf-1234", "team=finance"}, "p-one.raw.refunds"),
		labelledJobRowJSON("job_replay_1", jan15, "MERGE", "p-one.analytics.refunds", []string{"backfill_id=bf-1234"}, "p-one.raw.refunds"),
	}
	sink := collect(t, lineageCollector(t, f, "p-one"))
	if len(sink.Errors) != 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	var replays []string
	for _, b := range sink.Builds {
		if b.BackfillID != "" {
			replays = append(replays, fmt.Sprintf("%s %s %s %s", b.BackfillID, b.Table, b.Node, b.At.Format(time.RFC3339)))
		}
	}
	want := "bf-1234 p-one.analytics.refunds job_replay_2 " + jan20.Format(time.RFC3339)
	if strings.Join(replays, "; ") != want {
		t.Errorf("replay builds = %q, want %q (the latest labelled job per table and backfill)", replays, want)
	}
}
