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

// exampleBackfill is the quickstart's BF-1234, as a plan describes it.
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

// exampleArtifacts are one artifact per system and kind the collectors
// emit, named as they name them.
var exampleArtifacts = map[string]model.Artifact{
	"airflow-dag": {Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", State: model.StateEnabled,
		URI: "airflow://scheduler/dags/bf_1234_refund_replay", Name: "bf_1234_refund_replay"},
	"airflow-paused": {Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", State: model.StatePaused,
		URI: "airflow://scheduler/dags/bf_1234_refund_replay", Name: "bf_1234_refund_replay"},
	"airflow-pool": {Kind: model.KindPool, System: "airflow", Source: "scheduler", State: model.StateActive,
		URI: "airflow://scheduler/pools/bf_1234_backfill", Name: "bf_1234_backfill"},
	"airflow-variable": {Kind: model.KindVariable, System: "airflow", Source: "scheduler", State: model.StateActive,
		URI: "airflow://scheduler/variables/bf_1234_cutoff", Name: "bf_1234_cutoff"},
	"k8s-cronjob": {Kind: model.KindSchedulerJob, System: "kubernetes", Source: "cluster", State: model.StateEnabled,
		URI: "kubernetes://cluster/data-jobs/cronjobs/bf-1234-replay", Name: "bf-1234-replay"},
	"k8s-job": {Kind: model.KindJobRun, System: "kubernetes", Source: "cluster", State: model.StateEnabled,
		URI: "kubernetes://cluster/data-jobs/jobs/bf-1234-replay-29340", Name: "bf-1234-replay-29340", Attributes: model.Attrs(model.AttrFinished, "true")},
	"pg-grant": {Kind: model.KindGrant, System: "postgres", Source: "warehouse", State: model.StateActive,
		URI:  "postgres://warehouse/analytics/grant/bf_1234_loader/table/revenue.daily",
		Name: "INSERT,UPDATE on table revenue.daily to bf_1234_loader", Attributes: model.Attrs(model.AttrPrincipal, "bf_1234_loader", model.AttrRole, "INSERT,UPDATE", "object", "table")},
	"gcp-binding": {Kind: model.KindGrant, System: "gcpiam", Source: "iam", State: model.StateActive,
		URI:        "gcpiam://shop-analytics/bindings/roles/bigquery.dataEditor/serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com",
		Name:       "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com roles/bigquery.dataEditor",
		Attributes: model.Attrs(model.AttrPrincipal, "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com", model.AttrRole, "roles/bigquery.dataEditor")},
	"bq-acl": {Kind: model.KindGrant, System: "bigquery", Source: "warehouse-bq", State: model.StateActive,
		URI:        "bigquery://shop-analytics/revenue/acl/WRITER/serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com",
		Name:       "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com WRITER on revenue",
		Attributes: model.Attrs(model.AttrPrincipal, "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com", model.AttrRole, "WRITER", "dataset", "revenue")},
	"pg-role": {Kind: model.KindCredential, System: "postgres", Source: "warehouse", State: model.StateActive,
		URI: "postgres://warehouse/role/bf_1234_loader", Name: "bf_1234_loader", Attributes: model.Attrs(model.AttrPrincipal, "bf_1234_loader", model.AttrLogin, "true")},
	"gcp-key": {Kind: model.KindCredential, System: "gcpiam", Source: "iam", State: model.StateActive,
		URI:  "gcpiam://shop-analytics/serviceAccounts/backfill-runner@shop-analytics.iam.gserviceaccount.com/keys/8a1f0c2d9e",
		Name: "backfill-runner@shop-analytics.iam.gserviceaccount.com key 8a1f0c2d9e"},
	"bq-table": {Kind: model.KindTable, System: "bigquery", Source: "warehouse-bq", State: model.StateActive,
		URI: "bigquery://shop-analytics/revenue/bf_1234_refunds_tmp", Name: "revenue.bf_1234_refunds_tmp"},
	"pg-table": {Kind: model.KindTable, System: "postgres", Source: "warehouse", State: model.StateActive,
		URI: "postgres://warehouse/analytics/scratch.bf_1234_refunds", Name: "scratch.bf_1234_refunds", Attributes: model.Attrs("object", "table")},
	"pubsub-sub": {Kind: model.KindSubscription, System: "pubsub", Source: "events", State: model.StateActive,
		URI: "pubsub://shop-analytics/subscriptions/bf-1234-retries", Name: "bf-1234-retries", Attributes: model.Attrs(model.AttrMessages, "0")},
	"rabbit-queue": {Kind: model.KindQueue, System: "rabbitmq", Source: "broker", State: model.StateActive,
		URI: "rabbitmq://broker/%2F/queue/bf_1234.retry", Name: "bf_1234.retry",
		Attributes: model.Attrs(model.AttrMessages, "0", model.AttrAPIURL, "http://rabbitmq.internal:15672")},
	"prom-alert": {Kind: model.KindAlert, System: "prometheus", Source: "prometheus", State: model.StateEnabled,
		URI: "prometheus://prometheus/rules/backfill.yml/bf-1234/alerting/RefundBackfillLag", Name: "RefundBackfillLag",
		Attributes: model.Attrs("group", "bf-1234", "file", "/etc/prometheus/rules/backfill.yml", model.AttrWatchesOnly, "true")},
	"silence": {Kind: model.KindSilence, System: "alertmanager", Source: "alertmanager", State: model.StateActive,
		URI: "alertmanager://alertmanager/silences/7d3c6e1a-4a3b-4f7e-9a55-0b9a1c2d3e4f", Name: "7d3c6e1a-4a3b-4f7e-9a55-0b9a1c2d3e4f",
		Attributes: model.Attrs(model.AttrAPIURL, "http://alertmanager:9093", model.AttrMatchers, `{alertname="RevenueLate", job="daily_revenue"}`)},
	"flag": {Kind: model.KindFeatureFlag, System: "inventory", Source: "exports", State: model.StateEnabled,
		URI: "exports://flags/refund-backfill-mode", Name: "refund-backfill-mode"},
	"kafka-group": {Kind: model.KindCheckpoint, System: "kafka", Source: "events", State: model.StateActive,
		URI: "kafka://events/groups/bf_1234_replay", Name: "bf_1234_replay",
		Attributes: model.Attrs(model.AttrCheckpointType, "consumer_group", model.AttrMembers, "0", model.AttrLag, "1200000",
			model.AttrOffsets, "refunds/0=81234,refunds/1=80991", "bootstrap", "kafka-1.internal:9092")},
	"notebook-key": {Kind: model.KindNotebook, System: "notebooks", Source: "analytics", State: model.StateActive,
		URI: "notebooks:///bf_1234_refund_fix.ipynb", Name: "corrections/bf_1234_refund_fix.ipynb",
		Attributes: model.Attrs(model.AttrSecrets, "gcp-service-account-key\tcell 2 output 1 stdout line 4\t3f9a1c0d2b7e", model.AttrKeyIDs, "8a1f0c2d9e")},
	"notebook": {Kind: model.KindNotebook, System: "notebooks", Source: "analytics", State: model.StateActive,
		URI: "notebooks:///bf_1234_refund_fix.ipynb", Name: "corrections/bf_1234_refund_fix.ipynb"},
	"grafana-dashboard": {Kind: model.KindDashboard, System: "grafana", Source: "grafana", State: model.StateActive,
		URI: "grafana://grafana/dashboards/bf-1234-replay", Name: "BF-1234 refund replay",
		Attributes: model.Attrs("uid", "bf-1234-replay", model.AttrTemporary, "true", model.AttrAPIURL, "https://grafana.example.com", model.AttrURL, "https://grafana.example.com/d/bf-1234-replay/bf-1234-refund-replay")},
	"grafana-reader": {Kind: model.KindDashboard, System: "grafana", Source: "grafana", State: model.StateActive,
		URI: "grafana://grafana/dashboards/rev-daily", Name: "Revenue daily",
		Attributes: model.Attrs(model.AttrURL, "https://grafana.example.com/d/rev-daily/revenue-daily",
			model.AttrReads, model.FormatReads([]model.Read{{Identifier: "revenue.bf_1234_refunds_tmp", BackfillID: "BF-1234", Where: `panel "Refunds by day"`}}))},
	"bq-table-deleted": {Kind: model.KindTable, System: "bigquery", Source: "warehouse-bq", State: model.StateDeleted,
		URI: "bigquery://shop-analytics/revenue/bf_1234_refunds_tmp", Name: "revenue.bf_1234_refunds_tmp"},
	"airflow-catchup": {Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", State: model.StateEnabled,
		URI: "airflow://scheduler/dags/daily_revenue", Name: "daily_revenue"},
}

// ExampleOf makes one example finding of a rule, given the rule's id.
type ExampleOf func(ruleID string) Example

// Examples returns a rule's example findings with their facts, in the
// order its recipe lists them; none for a rule with no remedy.
func Examples(ruleID string) []Example {
	rc, _ := recipeOf(ruleID)
	out := make([]Example, 0, len(rc.Examples))
	for _, of := range rc.Examples {
		out = append(out, of(ruleID))
	}
	return out
}

// exampleRecord is BF-1234's complete decision record.
func exampleRecord() *model.DecisionRecord {
	b := exampleBackfill()
	return &model.DecisionRecord{BackfillID: "BF-1234", Purpose: b.Purpose, Range: b.Range, JobID: b.JobID,
		ValidationQuery: b.ValidationQuery, ApprovingOwner: b.Approver,
		Source: model.Location{Source: "plans", Path: "records/bf-1234.md"}}
}

// ExampleOn is a finding on the example artifact named key (one of
// exampleArtifacts), of BF-1234 as its plan describes it.
func ExampleOn(key string) ExampleOf {
	return func(rule string) Example {
		b := exampleBackfill()
		a, ok := exampleArtifacts[key]
		if !ok {
			panic("remedy: no example artifact " + key)
		}
		f := model.Finding{RuleID: rule, BackfillID: b.ID, Key: model.ParseID(b.ID), ArtifactURI: a.URI, Source: a.Source, Scope: a.Scope}
		f.Fingerprint = model.Fingerprint(rule, f.Key, a.URI)
		return Example{Finding: f, Facts: Facts{Artifact: &a, Backfill: b, RecordsDir: "records", PlansDir: "plans"}}
	}
}

// ExampleOrphan is a finding on the example artifact named key, tied to a
// backfill no plan describes (BF-4242).
func ExampleOrphan(key string) ExampleOf {
	return func(rule string) Example {
		e := ExampleOn(key)(rule)
		e.Finding.BackfillID, e.Facts.Backfill = "BF-4242", nil
		return e
	}
}

// exampleWhole is a finding about the whole of BF-1234, at loc, with its
// decision record rec (each nil when none).
func exampleWhole(rule string, loc *model.Location, rec *model.DecisionRecord) Example {
	b := exampleBackfill()
	f := model.Finding{RuleID: rule, BackfillID: b.ID, Key: model.ParseID(b.ID), Location: loc}
	f.Fingerprint = model.Fingerprint(rule, f.Key, "")
	return Example{Finding: f, Facts: Facts{Backfill: b, Record: rec, RecordsDir: "records", PlansDir: "plans"}}
}

// ExamplePlan is a finding about BF-1234, located in its plan file.
func ExamplePlan(rule string) Example {
	b := exampleBackfill()
	return exampleWhole(rule, &model.Location{Source: "plans", Path: b.Source.Path}, nil)
}

// ExampleNoRecord is a finding about BF-1234, which has no decision
// record.
func ExampleNoRecord(rule string) Example { return exampleWhole(rule, nil, nil) }

// ExampleRecord is a finding about BF-1234, whose decision record is
// complete.
func ExampleRecord(rule string) Example { return exampleWhole(rule, nil, exampleRecord()) }

// ExampleIncompleteRecord is a finding located in BF-1234's decision
// record, which holds only a purpose.
func ExampleIncompleteRecord(rule string) Example {
	rec := exampleRecord()
	return exampleWhole(rule, &rec.Source, &model.DecisionRecord{BackfillID: "BF-1234", Purpose: rec.Purpose, Source: rec.Source})
}

// ExampleConfig is a finding located at a line of the config file.
func ExampleConfig(line int) ExampleOf {
	return func(rule string) Example {
		return exampleWhole(rule, &model.Location{Path: "bfaudit.yaml", Line: line}, nil)
	}
}
