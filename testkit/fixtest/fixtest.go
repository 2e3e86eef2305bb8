// Package fixtest holds what the tests of fix and of each system's fix
// actions share: BF-1234's estate after its replay, the audit's inputs on
// it, a history store, and a plan applied through given actors.
package fixtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/records"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/rules"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

// Now is the time the tests audit at.
var Now = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// Estate is BF-1234 after its replay: verified long ago, with a scheduler
// job still enabled, an elevated grant, a temp table and a retry queue,
// and (when archived) an archived decision record.
func Estate(archived bool) *model.Estate {
	done := time.Date(2026, 9, 20, 0, 0, 0, 0, time.UTC)
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-1234", Origin: model.OriginPlan, Status: model.StatusVerified, Owner: "alice@example.com",
			Approver: "carol@example.com", Purpose: "refund fix", JobID: "daily_revenue", Expiry: done.AddDate(0, 0, 20),
			Timeline: model.Timeline{CompletedAt: done, VerifiedAt: done},
			Range:    model.Interval{Start: done.AddDate(0, -3, 0), End: done.AddDate(0, 0, -10)},
			Source:   model.Location{Source: "plans", Path: "plans/bf-1234.yaml"},
			AssetsToRemove: []string{"airflow://scheduler/dags/bf_1234_replay", "postgres://pg/analytics/scratch.bf_1234_tmp",
				"rabbitmq://mq/%2F/queue/bf_1234.retry"},
			ElevatedAccess: []model.ElevatedAccess{{Principal: "bf_1234_loader", Expiry: done}}}},
		Artifacts: []model.Artifact{
			{Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", Scope: "bf_1234_replay", State: model.StateEnabled,
				URI: "airflow://scheduler/dags/bf_1234_replay", Name: "bf_1234_replay", BackfillID: "BF-1234"},
			{Kind: model.KindGrant, System: "postgres", Source: "pg", Scope: "analytics/grants", State: model.StateActive,
				URI: "postgres://pg/analytics/grant/bf_1234_loader/table/revenue.daily", Name: "INSERT on table revenue.daily to bf_1234_loader",
				BackfillID: "BF-1234", Attributes: model.TagsOf(map[string]string{model.AttrPrincipal: "bf_1234_loader", model.AttrRole: "INSERT", "object": "table", model.AttrTimeBound: "false"})},
			{Kind: model.KindTable, System: "postgres", Source: "pg", Scope: "analytics", State: model.StateActive,
				URI: "postgres://pg/analytics/scratch.bf_1234_tmp", Name: "scratch.bf_1234_tmp", BackfillID: "BF-1234", Attributes: model.TagsOf(map[string]string{"object": "table"})},
			{Kind: model.KindQueue, System: "rabbitmq", Source: "mq", Scope: "%2F", State: model.StateActive,
				URI: "rabbitmq://mq/%2F/queue/bf_1234.retry", Name: "bf_1234.retry", BackfillID: "BF-1234"},
		},
		Coverage: []model.Coverage{{Source: "plans", Status: model.CoverageOK}, {Source: "scheduler", Status: model.CoverageOK},
			{Source: "pg", Status: model.CoverageOK}, {Source: "mq", Status: model.CoverageOK}},
	}
	if archived {
		est.Records = []model.DecisionRecord{{BackfillID: "BF-1234", Purpose: "refund fix", Range: est.Backfills[0].Range, JobID: "daily_revenue",
			ValidationQuery: "select 1", ApprovingOwner: "carol@example.com", FinalDataLocation: "revenue.daily",
			ArchivedAt: done.AddDate(0, 0, 5), Source: model.Location{Source: "plans", Path: "records/bf-1234.md"}}}
	}
	return est
}

// Inputs evaluates est with the built-in rules at Now.
func Inputs(t *testing.T, est *model.Estate) fix.Inputs {
	t.Helper()
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return evaluate(est, correlate.MustSelector(), eng)
}

// OpenStore opens a history store in the test's folder.
func OpenStore(t *testing.T) *history.Store {
	t.Helper()
	s, err := history.Open(context.Background(), history.Config{Path: filepath.Join(t.TempDir(), "h.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Apply plans backfill id with the reversible actions and allow allowed,
// and applies it through systems, recording in store.
func Apply(t *testing.T, in fix.Inputs, id string, systems map[string]remedy.Actor, store *history.Store, allow ...string) []fix.Result {
	t.Helper()
	allows := func(action string) bool { return remedy.Reversible(action) || slices.Contains(allow, action) }
	p, err := fix.NewPlan(in, id, func(a remedy.Action) bool { return allows(a.Name) })
	if err != nil {
		t.Fatal(err)
	}
	ap := &fix.Applier{Systems: systems, Allowed: allows, Store: store, Actor: "test", Now: func() time.Time { return Now }}
	return ap.Apply(context.Background(), p)
}

// StatusOf is the status of the first result of an action.
func StatusOf(results []fix.Result, action string) string {
	for _, r := range results {
		if r.Item.Action != nil && r.Item.Action.Name == action {
			return r.Status
		}
	}
	return ""
}

// PlanSource writes a plan for id, verified two months before now, and,
// when archived, its archived decision record; it returns the records
// collector reading them.
func PlanSource(t *testing.T, id string, archived bool, assets ...string) collectors.Instance {
	t.Helper()
	dir := t.TempDir()
	done := Now.AddDate(0, -2, 0).Format("2006-01-02")
	plan := fmt.Sprintf("id: %s\npurpose: replay\ntrigger: outage\njob_id: j\nrange: {start: 2026-06-01, end: 2026-07-01}\nowner: alice@example.com\n"+
		"approver: carol@example.com\nstatus: verified\ntimeline: {completed_at: %s, verified_at: %s}\nexpiry: %s\nvalidation_query: select 1\n"+
		"cleanup_owner: alice@example.com\nstrategy: interval\nconcurrency: 1\npool: p\nwrite_mode: partition_overwrite\ntrial_interval: true\nassets_to_remove: [%s]\n",
		id, done, done, done, strings.Join(assets, ", "))
	MustWrite(t, filepath.Join(dir, "plans", "p.yaml"), plan)
	if archived {
		MustWrite(t, filepath.Join(dir, "records", "r.md"), fmt.Sprintf("---\nbackfill_id: %s\npurpose: replay\nrange: {start: 2026-06-01, end: 2026-07-01}\n"+
			"job_id: j\nvalidation_query: select 1\napproving_owner: carol@example.com\nfinal_data_location: x.y\ncheckpoint: {final_range: all, replay_id: r}\narchived_at: %s\n---\n", id, done))
	} else {
		MustWrite(t, filepath.Join(dir, "records", "README"), "")
	}
	r := &records.Records{Plans: []string{filepath.Join(dir, "plans")}, Records: []string{filepath.Join(dir, "records")}}
	return collectors.Instance{Name: "plans", Type: "records", Collector: r}
}

// MustWrite writes a file, making its folder.
func MustWrite(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Audit collects from the instances and evaluates, as bfaudit fix does.
func Audit(t *testing.T, sel *correlate.Selector, instances ...collectors.Instance) fix.Inputs {
	t.Helper()
	est, err := audit.Collect(context.Background(), instances, sel, 2, Now)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range est.Coverage {
		if c.Status != model.CoverageOK {
			t.Fatalf("source %s: %+v", c.Source, c)
		}
	}
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return evaluate(est, sel, eng)
}

// Open lists the open findings of backfill id as rule id + artifact URI.
func Open(in fix.Inputs, id string) map[string]bool {
	out := map[string]bool{}
	for _, f := range in.Report.Findings {
		if model.SameID(f.BackfillID, id) && !f.Waived() {
			out[f.RuleID+" "+f.ArtifactURI] = true
		}
	}
	return out
}

// evaluate judges est as bfaudit fix does: the audit's pipeline, no
// sources to read.
func evaluate(est *model.Estate, sel *correlate.Selector, eng *rules.Engine) fix.Inputs {
	a, _ := audit.Run(context.Background(), context.Background(), audit.Plan{Estate: est, Selector: sel, Engine: eng, Now: Now})
	return fix.InputsOf(a)
}
