package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/audit/preview"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/bqfake"
)

// refundsPlan is a new plan on the quickstart's refunds table: July, which
// BF-1234 (still open: verified, not archived) also rewrote, on the DAG
// someone is already backfilling with 50 active runs.
const refundsPlan = `id: BF-5000
purpose: Recompute July refunds after the currency fix
trigger: bug_fix
job_id: daily_revenue
range: {start: 2026-07-01, end: 2026-08-01}
owner: alice@example.com
expiry: 2026-12-31
targets: [bigquery://shop-analytics/revenue/refunds]
strategy: interval
concurrency: 4
consumers_notified: true
notified: [alice@example.com]
cost_estimate: "$40 on-demand"
`

// livePlan copies the quickstart and writes the new plan beside it.
func livePlan(t *testing.T) (dir, cfg, plan string) {
	t.Helper()
	dir, cfg, _ = copyQuickstart(t)
	plan = filepath.Join(dir, "bf-5000.yaml")
	if err := os.WriteFile(plan, []byte(refundsPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, cfg, plan
}

func TestPlanLivePreview(t *testing.T) {
	_, cfg, plan := livePlan(t)
	// The owners of the dbt models get a team of their own, so the notices
	// are told by team.
	config, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	config = []byte(strings.Replace(string(config), "teams:\n", "teams:\n  data-eng: {members: [data-eng@acme.example], channel: \"#data-eng\"}\n", 1))
	if err := os.WriteFile(cfg, config, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := bfaudit(t, "plan", "check", "--live", "-c", cfg, "--now", "2026-12-01", plan)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	// The dbt models derived from refunds, parents before children, each
	// with its owner.
	order := []string{
		"1. shop-analytics.staging.stg_refunds  (owner unknown)",
		"2. shop-analytics.intermediate.int_orders  data-eng@acme.example (team data-eng)",
		"3. shop-analytics.marts.fct_refunds  data-eng@acme.example (team data-eng)",
		"4. shop-analytics.marts.fct_revenue  finance-analytics@acme.example",
	}
	last := -1
	for _, want := range order {
		i := strings.Index(out, want)
		if i < 0 || i < last {
			t.Errorf("rebuild order: %q missing or out of order in\n%s", want, out)
		}
		last = i
	}
	for _, want := range []string{
		// BF114's question: the owners not in notified.
		"team data-eng: data-eng@acme.example, owner of shop-analytics.intermediate.int_orders, shop-analytics.marts.fct_refunds",
		"no team: finance-analytics@acme.example, owner of shop-analytics.marts.fct_revenue",
		// BF115's question, against the DAG before the fact.
		"airflow://scheduler/dags/daily_revenue: max_active_runs 1, pool not set, catchup true",
		"plan says concurrency 4, the scheduler runs it with max_active_runs 1",
		"already active: airflow:scheduler:daily_revenue:63 for 2026-11-01 to 2026-11-28, airflow backfill 63 of DAG daily_revenue: max_active_runs 50, reprocess_behavior completed",
		"BF-1234 (verified, 2026-06-01 to 2026-08-30) rewrites shop-analytics.revenue.refunds",
		// No warehouse can dry-run it here: the cost is unknown, said so.
		"unknown: no configured source can dry-run a plan (a bigquery source)",
		"the plan's estimate: $40 on-demand",
		// The governance rules, against the lineage: BF114 at notified's line.
		"bf-5000.yaml:12: medium BF114 downstream-owner-not-notified: plan for BF-5000 says consumers were notified, but data-eng@acme.example and finance-analytics@acme.example",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "INCOMPLETE") {
		t.Errorf("every quickstart source answers, yet the preview says it is incomplete:\n%s", out)
	}
}

func TestPlanLiveJSONAndMarkdown(t *testing.T) {
	_, cfg, plan := livePlan(t)
	code, out, errs := bfaudit(t, "plan", "check", "--live", "-c", cfg, "--now", "2026-12-01", "--format", "json", plan)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r preview.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(r.Plans) != 1 {
		t.Fatalf("%d plans, want 1", len(r.Plans))
	}
	p := r.Plans[0]
	if len(p.Rebuild) != 4 || p.Rebuild[3].Table != "shop-analytics.marts.fct_revenue" || p.Rebuild[3].Owner != "finance-analytics@acme.example" {
		t.Errorf("rebuild: %+v", p.Rebuild)
	}
	if len(p.Collisions) != 1 || p.Collisions[0].Backfill != "BF-1234" {
		t.Errorf("collisions: %+v", p.Collisions)
	}
	if p.Scheduler == nil || len(p.Scheduler.Differences) != 1 || p.Scheduler.Differences[0].Key != "concurrency" {
		t.Errorf("scheduler: %+v", p.Scheduler)
	}

	code, out, errs = bfaudit(t, "plan", "check", "--live", "-c", cfg, "--now", "2026-12-01", "--format", "markdown", plan)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"### Preview of BF-5000", "4. `shop-analytics.marts.fct_revenue`  finance-analytics@acme.example", "- BF-1234 (verified"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown: missing %q in\n%s", want, out)
		}
	}
}

// SARIF carries the preview's findings at the plan's lines, for a code
// scanning upload on the pull request that adds the plan.
func TestPlanLiveSARIF(t *testing.T) {
	_, cfg, plan := livePlan(t)
	code, out, errs := bfaudit(t, "plan", "check", "--live", "-c", cfg, "--now", "2026-12-01", "--format", "sarif", plan)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					Physical struct {
						Artifact struct{ URI string }    `json:"artifactLocation"`
						Region   struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("not SARIF (%v):\n%s", err, out)
	}
	found := false
	for _, r := range log.Runs[0].Results {
		if r.RuleID == "BF114" && len(r.Locations) == 1 && strings.HasSuffix(r.Locations[0].Physical.Artifact.URI, "bf-5000.yaml") &&
			r.Locations[0].Physical.Region.StartLine == 12 {
			found = true
		}
	}
	if !found {
		t.Errorf("no BF114 result at bf-5000.yaml:12 in\n%s", out)
	}
}

// The only lineage source is broken: the tables to rebuild are unknown,
// and the preview says so and exits 3 rather than list none.
func TestPlanLiveBrokenLineageExits3(t *testing.T) {
	dir, cfg, plan := livePlan(t)
	if err := os.WriteFile(filepath.Join(dir, "dbt/target/manifest.json"), []byte(`{"nodes": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := bfaudit(t, "plan", "check", "--live", "-c", cfg, "--now", "2026-12-01", plan)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"source warehouse-dbt (dbt) answered in part: dbt/target/manifest.json", "unknown: lineage source warehouse-dbt did not answer fully"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout: missing %q in\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "the preview is incomplete: source warehouse-dbt") {
		t.Errorf("stderr does not name the source: %s", errs)
	}
	if strings.Contains(out, "nothing: the lineage shows no table") {
		t.Errorf("an unreadable lineage reads as nothing to rebuild:\n%s", out)
	}
}

func TestPlanLiveUsage(t *testing.T) {
	_, cfg, plan := livePlan(t)
	for _, args := range [][]string{
		{"plan", "check", "--live", plan},                          // no config: nothing to read
		{"plan", "check", "--live", "-c", cfg, "-f", "html", plan}, // not a preview format
		{"plan", "check", "--deadline", "1m", plan},                // nothing to read without --live
	} {
		if code, _, errs := bfaudit(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}

// Sources that never answer: the preview ends at the config's deadline
// (or --deadline's), exit 3, naming the deadline and the sources cut short.
func TestPlanLiveDeadline(t *testing.T) {
	cfg, _, _ := stalledConfig(t)
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("deadline: 2s\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	plan := filepath.Join(t.TempDir(), "bf-5000.yaml")
	if err := os.WriteFile(plan, []byte(refundsPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{{nil, "2s"}, {[]string{"--deadline", "1s"}, "1s"}} {
		start := time.Now()
		args := append([]string{"plan", "check", "--live", "-c", cfg, "--now", "2026-12-01", "--quiet", plan}, tc.flags...)
		code, out, errs := bfaudit(t, args...)
		if took := time.Since(start); took > time.Minute {
			t.Errorf("%v: the preview took %s with a %s deadline", tc.flags, took, tc.want)
		}
		if code != 3 {
			t.Fatalf("%v: exit %d, want 3\n%s\n%s", tc.flags, code, out, errs)
		}
		for _, want := range []string{"airflow-a", "airflow-b", "the run's deadline (" + tc.want + ") passed"} {
			if !strings.Contains(out, want) || !strings.Contains(errs, want) {
				t.Errorf("%v: %q not named on stdout and stderr:\n%s\n%s", tc.flags, want, out, errs)
			}
		}
	}
}

// replayQuery is the plan's replay, run once per day of the range.
const replayQuery = "MERGE `shop-analytics.revenue.refunds` t USING (SELECT * FROM `shop-analytics.raw.refunds` WHERE ts >= @start AND ts < @end) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET amount = s.amount"

// The warehouse's numbers are those docs/plans.md shows: July's 31 DAY
// partitions of refunds hold 4,120,000 rows and 38.4 GiB, and each day's
// replay processes 0.2 TiB (6.2 TiB in all, $38.75 at $6.25 per TiB).
const (
	partitionBytes = 384 * (1 << 30) / 10 / 31 // 1.24 GiB
	replayDayBytes = 2 * (1 << 40) / 10        // 0.2 TiB
)

// liveWarehouse adds a bigquery source, warehouse-bq, to the copied
// quickstart's config: the BigQuery fake holding shop-analytics, reached
// with a service account whose token endpoint is the fake's.
func liveWarehouse(t *testing.T, cfg string) *bqfake.Server {
	t.Helper()
	bq := bqfake.New(t)
	parts := []bqfake.Partition{{ID: "20260630", Rows: 99999, Bytes: 1 << 40}, {ID: "20260801", Rows: 99999, Bytes: 1 << 40}, {ID: "__NULL__", Rows: 5, Bytes: 500}}
	for d := range 31 {
		rows := int64(132900)
		if d == 30 {
			rows = 4120000 - 30*132900
		}
		parts = append(parts, bqfake.Partition{ID: fmt.Sprintf("202607%02d", d+1), Rows: rows, Bytes: partitionBytes})
	}
	bq.AddTable("shop-analytics.revenue.refunds", bqfake.Table{Partitioning: "DAY", Partitions: parts})
	bq.DryRun(func(q bqfake.Query) (int64, error) {
		if q.SQL != replayQuery || q.Params["start"] == "" || q.Params["end"] == "" {
			return 0, fmt.Errorf("Unrecognized name: %.20s", q.SQL)
		}
		return replayDayBytes, nil
	})
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", bq.Credentials(t))
	config, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	source := fmt.Sprintf("sources:\n  - type: bigquery\n    name: warehouse-bq\n    projects: [shop-analytics]\n    endpoint: %s\n    price_per_tib: 6.25\n    timeout: 2s\n", bq.URL)
	config = []byte(strings.Replace(string(config), "sources:\n", source, 1))
	if err := os.WriteFile(cfg, config, 0o644); err != nil {
		t.Fatal(err)
	}
	return bq
}

// costPlan is the new plan with its replay query and the estimate given;
// cost_estimate stays on line 13.
func costPlan(t *testing.T, plan, estimate string) {
	t.Helper()
	text := strings.Replace(refundsPlan, `"$40 on-demand"`, strconv.Quote(estimate), 1) + "replay_query: " + strconv.Quote(replayQuery) + "\n"
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// On the quickstart with a BigQuery source, the preview of the new plan on
// refunds says which of its partitions the replay rewrites and what the
// replay costs by the warehouse's dry run, one per day of July; the plan's
// $40 holds against $38.75, so no BF116.
func TestPlanLiveCostFromTheWarehouse(t *testing.T) {
	_, cfg, plan := livePlan(t)
	bq := liveWarehouse(t, cfg)
	costPlan(t, plan, "$40 on-demand")
	code, out, errs := bfaudit(t, "plan", "check", "--live", "-c", cfg, "--now", "2026-12-01", plan)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{
		"cost (the warehouse's dry runs):\n" +
			"    warehouse-bq: shop-analytics.revenue.refunds: 31 DAY partitions in the range, 4120000 rows, 38.4 GiB\n" +
			"    warehouse-bq: replay_query: 6.2 TiB ($38.75 at $6.25 per TiB), 31 intervals\n" +
			"    the plan's estimate: $40 on-demand\n",
		// The rest of the preview is as without the warehouse.
		"4. shop-analytics.marts.fct_revenue  finance-analytics@acme.example",
		"BF-1234 (verified, 2026-06-01 to 2026-08-30) rewrites shop-analytics.revenue.refunds",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"INCOMPLETE", "BF116"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("%s in\n%s", unwanted, out)
		}
	}
	var days []string
	for _, q := range bq.Queries() {
		if q.DryRun && q.SQL == replayQuery {
			days = append(days, q.Params["start"][:10]+" to "+q.Params["end"][:10])
		}
	}
	if len(days) != 31 || days[0] != "2026-07-01 to 2026-07-02" || days[30] != "2026-07-31 to 2026-08-01" {
		t.Errorf("the replay's dry runs: %q, want one per day of July", days)
	}
}

// A plan estimating $3 for what the dry run says costs $38.75 (13 times
// as much) gets BF116, high, at its cost_estimate line, in every format.
func TestPlanLiveCostEstimateFarUnder(t *testing.T) {
	_, cfg, plan := livePlan(t)
	liveWarehouse(t, cfg)
	costPlan(t, plan, "$3")
	const message = `plan for BF-5000 estimates "$3", but the warehouse's dry run says 6.2 TiB ($38.75 at $6.25 per TiB): 13 times as much`
	run := func(format string) string {
		t.Helper()
		code, out, errs := bfaudit(t, "plan", "check", "--live", "-c", cfg, "--now", "2026-12-01", "--format", format, plan)
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1 (a high finding, fail_on high)\nstdout:\n%s\nstderr:\n%s", format, code, out, errs)
		}
		return out
	}

	if out := run("text"); !strings.Contains(out, "bf-5000.yaml:13: high BF116 cost-estimate-low: "+message) {
		t.Errorf("text: no BF116 at the cost_estimate line in\n%s", out)
	}

	var r preview.Result
	if out := run("json"); json.Unmarshal([]byte(out), &r) != nil || len(r.Plans) != 1 {
		t.Fatalf("json: not one plan's preview:\n%s", out)
	}
	var bf116 *model.Finding
	for i, f := range r.Plans[0].Findings {
		if f.RuleID == "BF116" {
			bf116 = &r.Plans[0].Findings[i]
		}
	}
	if bf116 == nil || bf116.Severity != model.SeverityHigh || bf116.Message != message || bf116.Location == nil || bf116.Location.Line != 13 ||
		!slices.ContainsFunc(bf116.Evidence, func(e string) bool { return strings.HasSuffix(e, "bf-5000.yaml:13: cost_estimate: $3") }) {
		t.Errorf("json: BF116 %+v, want high at line 13 with the plan's cost_estimate line as evidence", bf116)
	}
	if len(r.Plans[0].Cost) != 1 || r.Plans[0].Cost[0].Source != "warehouse-bq" {
		t.Errorf("json: cost %+v, want warehouse-bq's", r.Plans[0].Cost)
	}

	if out := run("markdown"); !strings.Contains(out, "bf-5000.yaml:13: high BF116 cost-estimate-low: plan for BF-5000 estimates \"$3\"") {
		t.Errorf("markdown: no BF116 in\n%s", out)
	}

	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Locations []struct {
					Physical struct {
						Artifact struct{ URI string }    `json:"artifactLocation"`
						Region   struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	out := run("sarif")
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("sarif: not SARIF (%v):\n%s", err, out)
	}
	found := false
	for _, res := range log.Runs[0].Results {
		if res.RuleID == "BF116" && res.Level == "error" && len(res.Locations) == 1 &&
			strings.HasSuffix(res.Locations[0].Physical.Artifact.URI, "bf-5000.yaml") && res.Locations[0].Physical.Region.StartLine == 13 {
			found = true
		}
	}
	if !found {
		t.Errorf("sarif: no BF116 error at bf-5000.yaml:13 in\n%s", out)
	}
}

// BigQuery down: the cost is not known, and the preview says which source
// did not answer and exits 3, rather than show no cost and no BF116.
func TestPlanLiveWarehouseDownExits3(t *testing.T) {
	_, cfg, plan := livePlan(t)
	bq := liveWarehouse(t, cfg)
	costPlan(t, plan, "$3")
	bq.Close()
	start := time.Now()
	code, out, errs := bfaudit(t, "plan", "check", "--live", "-c", cfg, "--now", "2026-12-01", plan)
	if code != 3 {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("the preview took %s to say BigQuery is down", took)
	}
	for _, want := range []string{"INCOMPLETE", "source warehouse-bq could not estimate BF-5000",
		"cost (the warehouse's dry runs):\n    warehouse-bq: unknown: the source could not be asked (the preview is incomplete)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout: missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "nothing: warehouse-bq") {
		t.Errorf("a warehouse that did not answer reads as holding nothing:\n%s", out)
	}
	if !strings.Contains(errs, "the preview is incomplete: ") || !strings.Contains(errs, "warehouse-bq") {
		t.Errorf("stderr does not name the source: %s", errs)
	}
}
