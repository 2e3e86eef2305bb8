package faultmatrix

import (
	"context"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// planSource plays the plans source for every collector but records: one
// plan for BF-7001, finished long before the audit time, on financial
// data, with an elevated grant, so machinery tied to it draws findings.
type planSource struct{ collectors.Whole }

func (planSource) CollectUnit(_ context.Context, _ string, sink collectors.Sink) error {
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	sink.AddBackfill(model.Backfill{
		ID: BackfillID, Origin: model.OriginPlan, Purpose: "replay refunds after the filter bug",
		Trigger: model.TriggerBugFix, JobID: "daily_revenue",
		Range: model.Interval{Start: day("2025-10-01"), End: day("2026-01-01")},
		Owner: "data-eng@example.com", Approver: "lead@example.com",
		Classification: model.ClassFinancial, Status: model.StatusReplayed,
		Timeline:        model.Timeline{StartedAt: day("2026-01-05"), CompletedAt: day("2026-01-10")},
		Expiry:          day("2026-02-01"),
		ValidationQuery: "SELECT 1", CleanupOwner: "data-eng@example.com",
		ElevatedAccess: []model.ElevatedAccess{{Principal: "serviceAccount:bf-7001@proj.iam.gserviceaccount.com",
			Role: "roles/bigquery.dataEditor", Expiry: day("2026-02-01")}},
		Strategy: model.StrategyInterval, Concurrency: 1, Pool: "backfill", WriteMode: model.WritePartitionOverwrite,
		SideEffectsDisabled: true, TrialInterval: true, ConsumersNotified: true, KeepEvidence: true,
		// The table the replay rewrote: lineage collectors' fixtures derive
		// tables from it, so their units draw lineage findings.
		Targets: []string{"bigquery://acme-raw/raw/orders", "bigquery:proj.analytics.bf_7001_revenue_fix"},
		Source:  model.Location{Source: "plans", Path: "plans/bf-7001.yaml"},
	})
	sink.AddRead("", "plans", 1, 0)
	return nil
}
