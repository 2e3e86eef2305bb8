package remedy

import (
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Example is one finding of a rule, with the facts around it, whose
// remedy docs/rules.md shows and the tests check.
type Example struct {
	Finding model.Finding
	Facts   Facts
}

// exampleBackfill is the seed's BF-1234, as a plan describes it.
func exampleBackfill() *model.Backfill {
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	return &model.Backfill{ID: "BF-1234", Origin: model.OriginPlan, Trigger: model.TriggerBugFix,
		Purpose: "Recompute daily revenue with refunds included", JobID: "daily_revenue",
		Range: model.Interval{Start: day("2026-06-01"), End: day("2026-08-30")},
		Owner: "alice@example.com", Approver: "carol@example.com", Status: model.StatusVerified,
		Expiry: day("2026-10-15"), Pool: "backfill_low",
		ValidationQuery: "SELECT backfill_id, MIN(event_time), MAX(event_time), COUNT(*)\nFROM corrected_events WHERE backfill_id = 'BF-1234' GROUP BY backfill_id",
		AssetsToRemove:  []string{"bigquery://shop-analytics/revenue/bf_1234_refunds_tmp"},
		Source:          model.Location{Source: "plans", Path: "plans/bf-1234-refund-fix.yaml"}}
}

func attrs(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// exampleArtifacts are one artifact per system and kind the collectors
// emit, named as they name them.
var exampleArtifacts = map[string]model.Artifact{
	"airflow-dag": {Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", State: model.StateEnabled,
		URI: "airflow://scheduler/dags/bf_1234_refund_replay", Name: "bf_1234_refund_replay"},
	"airflow-paused": {Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", State: model.StatePaused,
		URI: "airflow://scheduler/dags/bf_1234_refund_replay", Name: "bf_1234_refund_replay"},
	"k8s-cronjob": {Kind: model.KindSchedulerJob, System: "kubernetes", Source: "cluster", State: model.StateEnabled,
		URI: "kubernetes://cluster/data-jobs/cronjobs/bf-1234-replay", Name: "bf-1234-replay"},
	"k8s-job": {Kind: model.KindJobRun, System: "kubernetes", Source: "cluster", State: model.StateEnabled,
		URI: "kubernetes://cluster/data-jobs/jobs/bf-1234-replay-29340", Name: "bf-1234-replay-29340", Attributes: attrs(model.AttrFinished, "true")},
	"pg-grant": {Kind: model.KindGrant, System: "postgres", Source: "warehouse", State: model.StateActive,
		URI:  "postgres://warehouse/analytics/grant/bf_1234_loader/table/revenue.daily",
		Name: "INSERT,UPDATE on table revenue.daily to bf_1234_loader", Attributes: attrs(model.AttrPrincipal, "bf_1234_loader", model.AttrRole, "INSERT,UPDATE", "object", "table")},
	"gcp-binding": {Kind: model.KindGrant, System: "gcpiam", Source: "iam", State: model.StateActive,
		URI:        "gcpiam://shop-analytics/bindings/roles/bigquery.dataEditor/serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com",
		Name:       "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com roles/bigquery.dataEditor",
		Attributes: attrs(model.AttrPrincipal, "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com", model.AttrRole, "roles/bigquery.dataEditor")},
	"bq-acl": {Kind: model.KindGrant, System: "bigquery", Source: "warehouse-bq", State: model.StateActive,
		URI:        "bigquery://shop-analytics/revenue/acl/WRITER/serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com",
		Name:       "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com WRITER on revenue",
		Attributes: attrs(model.AttrPrincipal, "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com", model.AttrRole, "WRITER", "dataset", "revenue")},
	"pg-role": {Kind: model.KindCredential, System: "postgres", Source: "warehouse", State: model.StateActive,
		URI: "postgres://warehouse/role/bf_1234_loader", Name: "bf_1234_loader", Attributes: attrs(model.AttrPrincipal, "bf_1234_loader", model.AttrLogin, "true")},
	"gcp-key": {Kind: model.KindCredential, System: "gcpiam", Source: "iam", State: model.StateActive,
		URI:  "gcpiam://shop-analytics/serviceAccounts/backfill-runner@shop-analytics.iam.gserviceaccount.com/keys/8a1f0c2d9e",
		Name: "backfill-runner@shop-analytics.iam.gserviceaccount.com key 8a1f0c2d9e"},
	"bq-table": {Kind: model.KindTable, System: "bigquery", Source: "warehouse-bq", State: model.StateActive,
		URI: "bigquery://shop-analytics/revenue/bf_1234_refunds_tmp", Name: "revenue.bf_1234_refunds_tmp"},
	"pg-table": {Kind: model.KindTable, System: "postgres", Source: "warehouse", State: model.StateActive,
		URI: "postgres://warehouse/analytics/scratch.bf_1234_refunds", Name: "scratch.bf_1234_refunds", Attributes: attrs("object", "table")},
	"pubsub-sub": {Kind: model.KindSubscription, System: "pubsub", Source: "events", State: model.StateActive,
		URI: "pubsub://shop-analytics/subscriptions/bf-1234-retries", Name: "bf-1234-retries", Attributes: attrs(model.AttrMessages, "0")},
	"rabbit-queue": {Kind: model.KindQueue, System: "rabbitmq", Source: "broker", State: model.StateActive,
		URI: "rabbitmq://broker/%2F/queue/bf_1234.retry", Name: "bf_1234.retry",
		Attributes: attrs(model.AttrMessages, "0", model.AttrAPIURL, "http://rabbitmq.internal:15672")},
	"prom-alert": {Kind: model.KindAlert, System: "prometheus", Source: "prometheus", State: model.StateEnabled,
		URI: "prometheus://prometheus/rules/backfill.yml/bf-1234/alerting/RefundBackfillLag", Name: "RefundBackfillLag",
		Attributes: attrs("group", "bf-1234", "file", "/etc/prometheus/rules/backfill.yml", model.AttrWatchesOnly, "true")},
	"silence": {Kind: model.KindSilence, System: "alertmanager", Source: "alertmanager", State: model.StateActive,
		URI: "alertmanager://alertmanager/silences/7d3c6e1a-4a3b-4f7e-9a55-0b9a1c2d3e4f", Name: "7d3c6e1a-4a3b-4f7e-9a55-0b9a1c2d3e4f",
		Attributes: attrs(model.AttrAPIURL, "http://alertmanager:9093", model.AttrMatchers, `{alertname="RevenueLate", job="daily_revenue"}`)},
	"flag": {Kind: model.KindFeatureFlag, System: "inventory", Source: "exports", State: model.StateEnabled,
		URI: "exports://flags/refund-backfill-mode", Name: "refund-backfill-mode"},
	"airflow-catchup": {Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", State: model.StateEnabled,
		URI: "airflow://scheduler/dags/daily_revenue", Name: "daily_revenue"},
}

// Examples returns, for each rule bfaudit has a remedy for, one or more
// findings with their facts, in rule order.
func Examples() map[string][]Example {
	b := exampleBackfill()
	plan := &model.Location{Source: "plans", Path: b.Source.Path}
	rec := &model.DecisionRecord{BackfillID: "BF-1234", Purpose: b.Purpose, Range: b.Range, JobID: b.JobID,
		ValidationQuery: b.ValidationQuery, ApprovingOwner: b.Approver,
		Source: model.Location{Source: "plans", Path: "records/bf-1234.md"}}
	on := func(rule, key string) Example {
		a := exampleArtifacts[key]
		f := model.Finding{RuleID: rule, BackfillID: b.ID, Key: model.ParseID(b.ID), ArtifactURI: a.URI, Source: a.Source, Scope: a.Scope}
		f.Fingerprint = model.Fingerprint(rule, f.Key, a.URI)
		return Example{Finding: f, Facts: Facts{Artifact: &a, Backfill: b, RecordsDir: "records", PlansDir: "plans"}}
	}
	whole := func(rule string, loc *model.Location, r *model.DecisionRecord) Example {
		f := model.Finding{RuleID: rule, BackfillID: b.ID, Key: model.ParseID(b.ID), Location: loc}
		f.Fingerprint = model.Fingerprint(rule, f.Key, "")
		return Example{Finding: f, Facts: Facts{Backfill: b, Record: r, RecordsDir: "records", PlansDir: "plans"}}
	}
	orphanEx := on("BF011", "pg-table")
	orphanEx.Finding.BackfillID, orphanEx.Facts.Backfill = "BF-4242", nil
	deleted := on("BF010", "bq-table")
	gone := *deleted.Facts.Artifact
	gone.State = model.StateDeleted
	deleted.Facts.Artifact = &gone
	incomplete := whole("BF009", &rec.Source, &model.DecisionRecord{BackfillID: "BF-1234", Purpose: b.Purpose, Source: rec.Source})
	waiver := whole("BF900", &model.Location{Path: "bfaudit.yaml", Line: 42}, nil)
	return map[string][]Example{
		"BF001": {on("BF001", "airflow-dag"), on("BF001", "k8s-cronjob"), on("BF001", "k8s-job")},
		"BF002": {on("BF002", "airflow-paused")},
		"BF003": {on("BF003", "pg-grant"), on("BF003", "gcp-binding"), on("BF003", "bq-acl")},
		"BF004": {on("BF004", "pg-role"), on("BF004", "gcp-key")},
		"BF005": {on("BF005", "bq-table"), on("BF005", "pg-table")},
		"BF006": {on("BF006", "pubsub-sub"), on("BF006", "rabbit-queue")},
		"BF007": {on("BF007", "prom-alert"), on("BF007", "flag")},
		"BF008": {whole("BF008", nil, nil)},
		"BF009": {incomplete},
		"BF010": {deleted, on("BF010", "gcp-key")},
		"BF011": {orphanEx},
		"BF012": {on("BF012", "rabbit-queue")},
		"BF013": {whole("BF013", nil, rec)},
		"BF014": {on("BF014", "pubsub-sub")},
		"BF015": {whole("BF015", plan, nil)},
		"BF016": {on("BF016", "silence")},
		"BF101": {whole("BF101", plan, nil)},
		"BF102": {whole("BF102", plan, nil), on("BF102", "pg-role"), on("BF102", "gcp-binding")},
		"BF103": {whole("BF103", plan, nil)},
		"BF104": {whole("BF104", plan, nil)},
		"BF105": {whole("BF105", plan, nil)},
		"BF106": {on("BF106", "airflow-catchup")},
		"BF107": {whole("BF107", plan, nil)},
		"BF108": {whole("BF108", plan, nil)},
		"BF109": {whole("BF109", plan, nil)},
		"BF110": {whole("BF110", plan, nil)},
		"BF111": {whole("BF111", plan, nil)},
		"BF112": {on("BF112", "silence")},
		"BF900": {waiver},
		"BF901": {whole("BF901", &model.Location{Path: "bfaudit.yaml", Line: 57}, nil)},
		"BF902": {whole("BF902", &model.Location{Path: "bfaudit.yaml", Line: 70}, nil)},
	}
}
