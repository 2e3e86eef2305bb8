package preview

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

func day(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }

func span(a, b string) model.Interval { return model.Interval{Start: day(a), End: day(b)} }

// estate: p.d.orders → p.d.daily (owned by finance) → p.d.monthly (a table
// artifact owned by ops); a job with its scheduler settings; and other
// backfills on orders, open or not, overlapping or not.
func estate(plan model.Backfill) *model.Estate {
	others := []model.Backfill{
		{ID: "BF-1", Origin: model.OriginPlan, Status: model.StatusRunning, Range: span("2026-01-15", "2026-02-15"), Targets: []string{"p.d.orders"}},
		// Half-open: ends where the plan starts.
		{ID: "BF-2", Origin: model.OriginPlan, Status: model.StatusRunning, Range: span("2025-12-01", "2026-01-01"), Targets: []string{"p.d.orders"}},
		{ID: "BF-3", Origin: model.OriginPlan, Status: model.StatusArchived, Range: span("2026-01-01", "2026-02-01"), Targets: []string{"p.d.orders"}},
		// No range known: cannot be ruled out.
		{ID: "BF-4", Origin: model.OriginPlan, Status: model.StatusPlanned, Targets: []string{"bigquery://p/d/orders"}},
		{ID: "BF-5", Origin: model.OriginPlan, Status: model.StatusRunning, Range: span("2026-01-01", "2026-02-01"), Targets: []string{"p.d.other"}},
	}
	return &model.Estate{
		Version:   model.EstateVersion,
		Backfills: append(others, plan),
		Edges:     []model.Edge{{Parent: "p.d.orders", Child: "p.d.daily"}, {Parent: "p.d.daily", Child: "p.d.monthly"}},
		Builds:    []model.Build{{Table: "p.d.daily", Owner: "fin@x"}, {Table: "p.d.monthly"}},
		Artifacts: []model.Artifact{
			{Kind: model.KindTable, URI: "bigquery://p/d/monthly", Owner: "ops@x"},
			{Kind: model.KindSchedulerJob, URI: "airflow://s/dags/orders_daily", Name: "orders_daily",
				Attributes: model.TagsOf(map[string]string{model.AttrMaxActiveRuns: "16", model.AttrPool: "default_pool", model.AttrCatchup: "true"})},
		},
		Coverage: []model.Coverage{{Source: "dbt", System: "dbt", Status: model.CoverageOK, Lineage: true}},
	}
}

func TestBuild(t *testing.T) {
	plan := model.Backfill{ID: "BF-9", Origin: model.OriginPlan, Status: model.StatusPlanned, JobID: "orders_daily",
		Range: span("2026-01-01", "2026-02-01"), Targets: []string{"p.d.orders"}, Concurrency: 2, Pool: "backfill",
		Notified: []string{"FIN@x"}}
	est := estate(plan)
	teams := model.Teams{"ops": {Members: []string{"ops@x"}}}
	r := Build(correlate.Correlate(est, correlate.MustSelector()), []model.Backfill{plan}, teams, day("2026-01-01"))
	p := r.Plans[0]
	if len(r.Incomplete) != 0 {
		t.Errorf("incomplete: %v", r.Incomplete)
	}
	if len(p.Rebuild) != 2 || p.Rebuild[0].Table != "p.d.daily" || p.Rebuild[1].Table != "p.d.monthly" ||
		p.Rebuild[1].Owner != "ops@x" || p.Rebuild[1].Team != "ops" {
		t.Errorf("rebuild: %+v", p.Rebuild)
	}
	// fin@x is notified (case aside); ops@x is not.
	if len(p.Tell) != 1 || p.Tell[0].Owner != "ops@x" || p.Tell[0].Team != "ops" {
		t.Errorf("tell: %+v", p.Tell)
	}
	var keys []string
	for _, d := range p.Scheduler.Differences {
		keys = append(keys, d.Key)
	}
	if got := strings.Join(keys, ","); got != "concurrency,pool" || !p.Scheduler.Differences[0].Riskier {
		t.Errorf("differences: %+v", p.Scheduler.Differences)
	}
	var ids []string
	for _, c := range p.Collisions {
		ids = append(ids, c.Backfill)
	}
	if got := strings.Join(ids, ","); got != "BF-1,BF-4" {
		t.Errorf("collisions: %s, want BF-1,BF-4 (BF-2 ends as the plan starts, BF-3 is archived, BF-5 writes another table)", got)
	}
}

// A lineage source that did not answer leaves the lists unknown, named.
func TestBuildLineageGap(t *testing.T) {
	plan := model.Backfill{ID: "BF-9", Origin: model.OriginPlan, Targets: []string{"p.d.orders"}}
	est := estate(plan)
	est.Edges, est.Builds = nil, nil
	est.Coverage[0] = model.Coverage{Source: "dbt", System: "dbt", Status: model.CoverageFailed, Error: "manifest: invalid JSON", Lineage: true}
	r := Build(correlate.Correlate(est, correlate.MustSelector()), []model.Backfill{plan}, nil, day("2026-01-01"))
	if len(r.Incomplete) != 1 || !strings.Contains(r.Incomplete[0], "source dbt (dbt) failed: manifest: invalid JSON") {
		t.Errorf("incomplete: %v", r.Incomplete)
	}
	var b strings.Builder
	if err := Write(&b, "table", r, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "unknown: lineage source dbt did not answer fully") || strings.Contains(b.String(), "nothing:") {
		t.Errorf("an unanswered lineage reads as known:\n%s", b.String())
	}
	// On a 40-column terminal every line fits, and nothing is lost.
	b.Reset()
	if err := Write(&b, "table", r, 40); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if len(l) > 40 {
			t.Errorf("a line of %d columns at width 40: %q", len(l), l)
		}
	}
	if words := strings.Join(strings.Fields(b.String()), " "); !strings.Contains(words, "unknown: lineage source dbt did not answer fully") {
		t.Errorf("wrapping lost words:\n%s", b.String())
	}
}

// Words from the estate go into a pull-request comment: they must ping no
// one and break no list.
func TestMarkdownDefusesEstateText(t *testing.T) {
	r := Result{Incomplete: []string{"source x failed: see #12"}, Plans: []Plan{{ID: "BF-9", File: "plans/bf-9.yaml", Lineage: true,
		Rebuild: []Table{{Table: "p.d.t", Owner: "@payments-team"}},
		Tell:    []Notice{{Owner: "@payments-team", Tables: []string{"p.d.t"}}}}}}
	var b strings.Builder
	if err := Write(&b, "markdown", r, 0); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{" @payments", "#12"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("%q reaches the comment as is:\n%s", bad, b.String())
		}
	}
}
