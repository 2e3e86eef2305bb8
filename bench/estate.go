// Package bench generates large, realistic estates (Estate; bench/gen
// saves one to a file) for the benchmarks and memory bounds of an audit,
// and holds the tests that keep faster code writing the same reports: the
// quickstart's golden reports, the digests of the 100k estate's, and what
// a small estate's reports must say. bench/run.sh times whole processes
// against bench/plainloop.
package bench

import (
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Now is the audit time of generated estates.
var Now = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// Estate generates backfills plans, one decision record for every other
// backfill, and artifacts spread over them: scheduler jobs and runs, tables,
// queues, grants, credentials and alerts, one in twenty tied to a backfill
// no plan knows and one in ten tied to none. Half the backfills are long
// finished, so the cleanup rules have work to do; the rest are planned or
// running, for the governance rules.
func Estate(artifacts, backfills int) *model.Estate {
	est := &model.Estate{Version: model.EstateVersion, CollectedAt: Now}
	for _, s := range []string{"plans", "airflow", "bigquery", "pubsub", "gcpiam", "postgres"} {
		est.Coverage = append(est.Coverage, model.Coverage{Source: s, System: s, Status: model.CoverageOK})
	}
	statuses := []model.Status{model.StatusPlanned, model.StatusRunning, model.StatusReplayed, model.StatusVerified, model.StatusArchived, model.StatusRetired}
	for i := 0; i < backfills; i++ {
		id := fmt.Sprintf("BF-%d", 10000+i)
		done := Now.AddDate(0, 0, -(i%120 + 1))
		b := model.Backfill{
			ID: id, Origin: model.OriginPlan, Purpose: "generated", Trigger: []model.Trigger{model.TriggerOutage, model.TriggerBugFix, model.TriggerLateData}[i%3],
			JobID: fmt.Sprintf("job_%d", i%300), Owner: fmt.Sprintf("owner%d@example.com", i%50),
			Range:  model.Interval{Start: done.AddDate(0, 0, -30), End: done.AddDate(0, 0, -1)},
			Status: statuses[i%len(statuses)], Expiry: done.AddDate(0, 0, 20),
			ValidationQuery: "SELECT COUNT(*) FROM t", AssetsToRemove: []string{fmt.Sprintf("bigquery://p%d/d/bf_%d_tmp", i%20, 10000+i)},
			Strategy: model.StrategyParallel, Concurrency: i % 6, Pool: []string{"backfill", ""}[i%2],
			DependsOnPast: i%7 == 0, WriteMode: []model.WriteMode{model.WritePartitionOverwrite, model.WriteAppend}[i%5/4],
			SideEffects: []string{"emails"}, SideEffectsDisabled: i%3 != 0, TrialInterval: i%4 != 0,
			ConsumersNotified: i%2 == 0, Classification: []model.Classification{"", model.ClassFinancial}[i%2],
			Source: model.Location{Source: "plans", Path: fmt.Sprintf("plans/%s.yaml", id), Line: 1},
		}
		if b.Status.Completed() {
			b.Timeline.CompletedAt = done
			b.Validation = &model.Validation{Rows: int64(i), Min: b.Range.Start, Max: b.Range.End.Add(-time.Hour)}
		}
		est.Backfills = append(est.Backfills, b)
		if i%2 == 0 {
			r := model.DecisionRecord{BackfillID: id, Purpose: "generated", Range: b.Range, JobID: b.JobID,
				ValidationQuery: b.ValidationQuery, ApprovingOwner: "carol@example.com",
				Source: model.Location{Source: "plans", Path: fmt.Sprintf("records/%s.md", id), Line: 1}}
			if i%4 == 0 {
				r.ArchivedAt, r.FinalDataLocation = done.AddDate(0, 0, 3), "p.d.final"
			}
			est.Records = append(est.Records, r)
		}
	}
	kinds := []model.Kind{model.KindSchedulerJob, model.KindJobRun, model.KindJobRun, model.KindTable, model.KindTable,
		model.KindSubscription, model.KindGrant, model.KindCredential, model.KindAlert, model.KindQueue}
	for i := 0; i < artifacts; i++ {
		k := kinds[i%len(kinds)]
		bf := i % backfills
		a := model.Artifact{Kind: k, State: model.StateActive, CreatedAt: model.At(Now.AddDate(0, 0, -(i % 200)))}
		switch {
		case i%10 == 9: // not machinery of any backfill
		case i%20 == 4:
			a.Labels = model.TagsOf(map[string]string{"backfill_id": fmt.Sprintf("bf_%d", 900000+i%500)})
		default:
			a.Labels = model.TagsOf(map[string]string{"backfill_id": fmt.Sprintf("bf_%d", 10000+bf)})
		}
		switch k {
		case model.KindSchedulerJob:
			a.System, a.Source, a.Scope = "airflow", "airflow", "dags"
			a.URI = fmt.Sprintf("airflow://s/dags/bf_%d_replay_%d", 10000+bf, i)
			a.State = []model.State{model.StateEnabled, model.StatePaused}[i%2]
			a.Attributes = model.TagsOf(map[string]string{model.AttrCatchup: "true", model.AttrStartDate: "2025-01-01T00:00:00Z", model.AttrPool: "default_pool", model.AttrMaxActiveRuns: "16"})
		case model.KindJobRun:
			a.System, a.Source, a.Scope = "airflow", "airflow", "runs"
			a.URI = fmt.Sprintf("airflow://s/dags/bf_%d_replay/dagRuns/%d", 10000+bf, i)
			a.Attributes = model.TagsOf(map[string]string{model.AttrRunType: "backfill", model.AttrRunState: []string{"success", "queued", "running"}[i%3]})
		case model.KindTable:
			a.System, a.Source, a.Scope = "bigquery", "bigquery", fmt.Sprintf("p%d", i%20)
			a.URI = fmt.Sprintf("bigquery://p%d/d/t_%d", i%20, i)
			a.Attributes = model.TagsOf(map[string]string{model.AttrRows: fmt.Sprint(i % 1000), model.AttrBytes: fmt.Sprint(i * 100)})
			if i%3 == 0 {
				a.ExpiresAt = model.At(Now.AddDate(0, 0, 10-i%20))
			}
		case model.KindSubscription, model.KindQueue:
			a.System, a.Source, a.Scope = "pubsub", "pubsub", "p"
			a.URI = fmt.Sprintf("pubsub://p/subscriptions/s_%d", i)
			a.Attributes = model.TagsOf(map[string]string{model.AttrMessages: fmt.Sprint(i % 50), model.AttrConsumers: "1"})
		case model.KindGrant:
			a.System, a.Source, a.Scope = "gcpiam", "gcpiam", "p"
			a.URI = fmt.Sprintf("gcpiam://p/roles/editor/sa%d", i)
			a.Attributes = model.TagsOf(map[string]string{model.AttrPrincipal: fmt.Sprintf("serviceAccount:sa%d@p", i), model.AttrRole: "roles/editor", model.AttrTimeBound: "false"})
			if i%4 == 0 {
				a.SetAttr(model.AttrCondition, fmt.Sprintf(`request.time < timestamp("2026-%02d-01T00:00:00Z")`, i%12+1))
			}
		case model.KindCredential:
			a.System, a.Source, a.Scope = "postgres", "postgres", "roles"
			a.URI = fmt.Sprintf("postgres://w/roles/r%d", i)
			a.Attributes = model.TagsOf(map[string]string{model.AttrLogin: "true"})
		case model.KindAlert:
			a.System, a.Source, a.Scope = "inventory", "plans", ""
			a.URI = fmt.Sprintf("exports://alerts/a%d", i)
			a.Attributes = model.TagsOf(map[string]string{model.AttrWatchesOnly: "true"})
		}
		a.Name = a.URI[len(a.URI)-min(len(a.URI), 24):]
		if i%3 == 0 {
			a.Owner = fmt.Sprintf("team%d@example.com", i%40)
		}
		est.Artifacts = append(est.Artifacts, a)
	}
	return est
}
