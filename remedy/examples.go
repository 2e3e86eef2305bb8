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

// ExampleArtifact is the example artifact a system registers as key.
func ExampleArtifact(key string) (model.Artifact, bool) {
	systemsMu.RLock()
	defer systemsMu.RUnlock()
	return exampleArtifact(key)
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

// ExampleOn is a finding on the example artifact named key (one a
// system registers in its Examples), of BF-1234 as its plan describes it.
func ExampleOn(key string) ExampleOf {
	return func(rule string) Example {
		b := exampleBackfill()
		a, ok := ExampleArtifact(key)
		if !ok {
			panic("remedy: no example artifact " + key + " (is its system's package imported?)")
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

// ExampleUntied is a finding on the example artifact named key, tied to
// no backfill.
func ExampleUntied(key string) ExampleOf {
	return func(rule string) Example {
		e := ExampleOn(key)(rule)
		e.Finding.BackfillID, e.Finding.Key, e.Facts.Backfill = "", "", nil
		e.Finding.Fingerprint = model.Fingerprint(rule, e.Finding.Key, e.Finding.ArtifactURI)
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
