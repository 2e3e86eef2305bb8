package builtin_test

import (
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Cases of the lineage and scheduler rules (BF024-BF027, BF114, BF115 and
// the scheduler-only cases of BF103-BF105), joined to the catalogue's
// firing and quiet lists.
func init() {
	firing = append(firing, lineageFiring...)
	quiet = append(quiet, lineageQuiet...)
}

const srcDBT = "dbt"

// lineageEstate is a dbt project three levels deep under BF-1's target
// p.raw.orders: stg.orders, int.orders, then mart.revenue and
// mart.refunds. built gives each table's last build, as hours after done
// (negative: before the backfill completed).
func lineageEstate(built map[string]float64) *estate {
	e := newEstate()
	e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: srcDBT, System: "dbt", Status: model.CoverageOK})
	edge := func(p, c string) model.Edge {
		return model.Edge{Parent: p, Child: c, System: "dbt", Source: srcDBT, Scope: "target/manifest.json", Via: "model." + c}
	}
	e.est.Edges = []model.Edge{
		edge("p.raw.orders", "p.stg.orders"), edge("p.stg.orders", "p.int.orders"),
		edge("p.int.orders", "p.mart.revenue"), edge("p.int.orders", "p.mart.refunds"),
	}
	for _, t := range []string{"p.stg.orders", "p.int.orders", "p.mart.revenue", "p.mart.refunds"} {
		b := model.Build{Table: t, Node: t[len("p."):], System: "dbt", Source: srcDBT, Scope: "target/run_results.json", Status: "success"}
		if h, ok := built[t]; ok {
			b.At = done.Add(time.Duration(h * float64(time.Hour)))
		}
		e.est.Builds = append(e.est.Builds, b)
	}
	return e
}

func targets(b *model.Backfill) { b.Targets = []string{"bigquery://p/raw/orders"} }

func allBuilt(h float64) map[string]float64 {
	return map[string]float64{"p.stg.orders": h, "p.int.orders": h + 1, "p.mart.revenue": h + 2, "p.mart.refunds": h + 2}
}

// schedulerView is Airflow's backfill object 7 of daily_orders.
func schedulerView(mods ...func(*model.SchedulerView)) model.SchedulerView {
	f := false
	v := model.SchedulerView{Source: model.Location{Source: srcSched, Path: "dags/daily_orders/backfills/7"},
		Object: "airflow backfill 7 of DAG daily_orders", MaxActiveRuns: 1, Pool: "backfill_low", DependsOnPast: &f,
		ReprocessBehavior: "none", Running: true}
	for _, m := range mods {
		m(&v)
	}
	return v
}

// scheduled adds the scheduler's account of id.
func (e *estate) scheduled(id string, v model.SchedulerView) *estate {
	e.est.Backfills = append(e.est.Backfills, model.Backfill{ID: id, Origin: model.OriginScheduler, Status: model.StatusRunning,
		JobID: "daily_orders", Concurrency: v.MaxActiveRuns, Scheduled: []model.SchedulerView{v}, Source: v.Source})
	return e
}

func maxRuns(n int) func(*model.SchedulerView) {
	return func(v *model.SchedulerView) { v.MaxActiveRuns = n }
}

func pool(name string) model.Artifact {
	return model.Artifact{Kind: model.KindPool, System: "airflow", Source: srcSched, Scope: "pools",
		URI: "airflow://sched/pools/" + name, Name: name, BackfillID: "BF-1", State: model.StateActive}
}

var lineageFiring = []ruleCase{
	{rule: "BF024", name: "every derived table built before the backfill completed", want: 4,
		check: all(severity(model.SeverityMedium), mentions("rebuild order: 1. p.stg.orders, 2. p.int.orders, 3. p.mart.refunds, 4. p.mart.revenue")),
		build: func() *estate { return lineageEstate(allBuilt(-30)).plan(completed, targets) }},
	{rule: "BF024", name: "only the tables not rebuilt since, one of them never built", want: 2, check: mentions("rebuild order: 1. p.mart.refunds, 2. p.mart.revenue"),
		build: func() *estate {
			return lineageEstate(map[string]float64{"p.stg.orders": 2, "p.int.orders": 3, "p.mart.revenue": -5}).plan(completed, targets)
		}},
	{rule: "BF024", name: "a failed rebuild is no rebuild", want: 1, check: mentions("newest attempt: error"),
		build: func() *estate {
			e := lineageEstate(allBuilt(1)).plan(completed, targets)
			e.est.Builds[1].Status, e.est.Builds[1].At = "error", done.Add(-30*time.Hour)
			return e
		}},
	{rule: "BF024", name: "no targets in the plan: the tables the replay's own jobs wrote", want: 4,
		build: func() *estate {
			e := lineageEstate(allBuilt(-30)).plan(completed)
			e.est.Builds = append(e.est.Builds, model.Build{Table: "p.raw.orders", Node: "job_bf_1", At: done.Add(-time.Hour),
				System: "bigquery", Source: srcDBT, Scope: "p/jobs@region-us", BackfillID: "bf_1"})
			return e
		}},
	{rule: "BF024", name: "financial data is high", want: 4, check: severity(model.SeverityHigh),
		build: func() *estate { return lineageEstate(allBuilt(-30)).plan(completed, targets, classified) }},
	{rule: "BF024", name: "a lineage unit that did not answer keeps what it gave", want: 4,
		build: func() *estate {
			return lineageEstate(allBuilt(-30)).plan(completed, targets).degrade(srcDBT, "target/run_results.json")
		}},
	// int.orders read stg.orders' old numbers, so the marts built from it
	// must be rebuilt again after it too.
	{rule: "BF025", name: "intermediate rebuilt before its parent, and what was built from it", want: 3, check: mentions("rebuild order: 1. p.int.orders, 2. p.mart.refunds, 3. p.mart.revenue"),
		build: func() *estate {
			return lineageEstate(map[string]float64{"p.stg.orders": 5, "p.int.orders": 2, "p.mart.revenue": 6, "p.mart.refunds": 6}).plan(completed, targets)
		}},
	{rule: "BF025", name: "mart rebuilt while its parent is still stale", want: 2, check: mentions("p.int.orders is not rebuilt since the backfill"),
		build: func() *estate {
			return lineageEstate(map[string]float64{"p.stg.orders": 1, "p.int.orders": -3, "p.mart.revenue": 2, "p.mart.refunds": 2}).plan(completed, targets)
		}},
	{rule: "BF026", name: "the backfill's pool after the grace", want: 1, check: mentions("pool bf_1_pool"),
		build: func() *estate { return newEstate().plan(completed).artifact(pool("bf_1_pool")) }},
	{rule: "BF026", name: "a variable too", want: 1,
		build: func() *estate {
			return newEstate().plan(completed).artifact(pool("bf_1_cutoff"), func(a *model.Artifact) { a.Kind = model.KindVariable })
		}},
	{rule: "BF027", name: "a running scheduler backfill no plan describes is high", want: 1, check: all(severity(model.SeverityHigh), mentions("BF-9 is running")),
		build: func() *estate { return newEstate().scheduled("BF-9", schedulerView()) }},
	{rule: "BF027", name: "a finished one is medium", want: 1, check: severity(model.SeverityMedium),
		build: func() *estate {
			e := newEstate().scheduled("BF-9", schedulerView(func(v *model.SchedulerView) { v.Running = false }))
			e.est.Backfills[0].Status = model.StatusReplayed
			return e
		}},
	{rule: "BF027", name: "an active backfill run tagged with an unknown id", want: 1, check: severity(model.SeverityHigh),
		build: func() *estate {
			return newEstate().artifact(model.Artifact{Kind: model.KindJobRun, System: "airflow", Source: srcSched, Scope: "runs/x",
				URI: "airflow://sched/dags/x/dagRuns/backfill__1", Name: "backfill__1", BackfillID: "BF-77", State: model.StateActive,
				Attributes: model.TagsOf(map[string]string{model.AttrRunType: "backfill"})})
		}},
	{rule: "BF027", name: "a running Kubernetes Job labelled with an id nothing describes", want: 1, check: all(severity(model.SeverityHigh), mentions("BF-88 is running")),
		build: func() *estate {
			return newEstate().artifact(model.Artifact{Kind: model.KindJobRun, System: "kubernetes", Source: srcSched, Scope: "batch",
				URI: "kubernetes://c/data-jobs/jobs/bf-88-replay", Name: "bf-88-replay", BackfillID: "bf-88", State: model.StateActive,
				Attributes: model.Attrs(model.AttrRunType, "backfill")}) // as the kubernetes collector emits a Job
		}},
	{rule: "BF114", name: "a downstream owner missing from notified", want: 1, check: mentions("finance-team, who owns tables derived"),
		build: func() *estate {
			e := lineageEstate(allBuilt(3)).plan(completed, targets, func(b *model.Backfill) { b.Notified = []string{"alice@example.com"} })
			e.est.Builds[1].Owner = "finance-team"
			return e
		}},
	{rule: "BF115", name: "plan concurrency 1, the scheduler runs 50", want: 1,
		check: all(severity(model.SeverityHigh), mentions("says concurrency 1, but airflow backfill 7 of DAG daily_orders runs it with max_active_runs 50")),
		build: func() *estate { return newEstate().plan(running).scheduled("BF-1", schedulerView(maxRuns(50))) }},
	{rule: "BF115", name: "pool, depends_on_past and reprocess behaviour each", want: 3,
		build: func() *estate {
			return newEstate().plan(running, func(b *model.Backfill) { b.ReprocessBehavior = "failed" }).scheduled("BF-1", schedulerView(func(v *model.SchedulerView) {
				t := true
				v.Pool, v.DependsOnPast, v.ReprocessBehavior = "default_pool", &t, "completed"
			}))
		}},
	{rule: "BF103", name: "unplanned scheduler backfill with 50 active runs", want: 1, check: mentions("max_active_runs 50"),
		build: func() *estate { return newEstate().scheduled("BF-9", schedulerView(maxRuns(50))) }},
	{rule: "BF104", name: "unplanned depends-on-past backfill run 4 at a time", want: 1,
		build: func() *estate {
			return newEstate().scheduled("BF-9", schedulerView(maxRuns(4), func(v *model.SchedulerView) { t := true; v.DependsOnPast = &t }))
		}},
	{rule: "BF105", name: "unplanned backfill rerunning succeeded intervals", want: 1, check: mentions("reprocess_behavior completed"),
		build: func() *estate {
			return newEstate().scheduled("BF-9", schedulerView(func(v *model.SchedulerView) { v.ReprocessBehavior = "completed" }))
		}},
}

var lineageQuiet = []ruleCase{
	{rule: "BF024", name: "every derived table rebuilt since", build: func() *estate { return lineageEstate(allBuilt(1)).plan(completed, targets) }},
	{rule: "BF024", name: "within the grace", now: done.Add(12 * time.Hour),
		build: func() *estate { return lineageEstate(allBuilt(-30)).plan(completed, targets) }},
	{rule: "BF024", name: "the plan names no target", build: func() *estate { return lineageEstate(allBuilt(-30)).plan(completed) }},
	{rule: "BF024", name: "still running", build: func() *estate { return lineageEstate(allBuilt(-30)).plan(running, targets) }},
	{rule: "BF025", name: "rebuilt in dependency order", build: func() *estate { return lineageEstate(allBuilt(1)).plan(completed, targets) }},
	{rule: "BF026", name: "the backfill still runs", build: func() *estate { return newEstate().plan(running).artifact(pool("bf_1_pool")) }},
	{rule: "BF027", name: "the scheduler runs a planned backfill", build: func() *estate { return newEstate().plan(running).scheduled("BF-1", schedulerView()) }},
	{rule: "BF027", name: "a decision record describes it",
		build: func() *estate { return newEstate().scheduled("BF-9", schedulerView()).record(fullRecord("BF-9")) }},
	{rule: "BF114", name: "every downstream owner notified",
		build: func() *estate {
			e := lineageEstate(allBuilt(3)).plan(completed, targets, func(b *model.Backfill) { b.Notified = []string{"alice@example.com", "Finance-Team"} })
			e.est.Builds[1].Owner = "finance-team"
			return e
		}},
	{rule: "BF114", name: "the plan does not list who was told",
		build: func() *estate {
			e := lineageEstate(allBuilt(3)).plan(completed, targets)
			e.est.Builds[1].Owner = "finance-team"
			return e
		}},
	{rule: "BF115", name: "the scheduler runs it as planned", build: func() *estate { return newEstate().plan(running).scheduled("BF-1", schedulerView()) }},
	{rule: "BF115", name: "the scheduler's backfill is over",
		build: func() *estate {
			return newEstate().plan(running).scheduled("BF-1", schedulerView(maxRuns(50), func(v *model.SchedulerView) { v.Running = false }))
		}},
	{rule: "BF103", name: "unplanned but bounded in a dedicated pool", build: func() *estate { return newEstate().scheduled("BF-9", schedulerView()) }},
	{rule: "BF104", name: "unplanned depends-on-past one at a time",
		build: func() *estate {
			return newEstate().scheduled("BF-9", schedulerView(func(v *model.SchedulerView) { t := true; v.DependsOnPast = &t }))
		}},
	{rule: "BF105", name: "unplanned, only missing intervals", build: func() *estate { return newEstate().scheduled("BF-9", schedulerView()) }},
}
