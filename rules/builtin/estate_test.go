package builtin_test

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

// The test estates revolve around one backfill, BF-1, that finished its
// replay at done; audits run at now unless a case says otherwise.
var (
	done = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	now  = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// estate builds a model.Estate in a few lines. Every source it uses
// answered fully unless a case says otherwise with degrade.
type estate struct{ est model.Estate }

const (
	srcPlans = "plans"
	srcWH    = "warehouse"
	srcSched = "scheduler"
	srcIAM   = "iam"
)

func newEstate() *estate {
	e := &estate{est: model.Estate{Version: model.EstateVersion}}
	for _, s := range []string{srcPlans, srcWH, srcSched, srcIAM} {
		sys := s
		if s == srcIAM {
			sys = "gcpiam" // a system that lists cloud keys (BF022)
		}
		e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: s, System: sys, Status: model.CoverageOK})
	}
	return e
}

// goodPlan is a plan that passes every governance rule, not yet run.
func goodPlan(id string) model.Backfill {
	return model.Backfill{
		ID: id, Origin: model.OriginPlan, Purpose: "replay after outage", Trigger: model.TriggerOutage,
		JobID: "daily_orders", Range: model.Interval{Start: at("2026-08-01T00:00:00Z"), End: at("2026-08-08T00:00:00Z")},
		Owner: "alice@example.com", Approver: "carol@example.com", Status: model.StatusPlanned,
		Expiry: at("2027-01-01T00:00:00Z"), ValidationQuery: "SELECT COUNT(*) FROM t", AssetsToRemove: []string{"bq://p/d/bf_1_tmp"},
		CleanupOwner: "alice@example.com", Strategy: model.StrategyInterval, Concurrency: 1, Pool: "backfill_low",
		WriteMode: model.WritePartitionOverwrite, TrialInterval: true, ConsumersNotified: true,
		Source: model.Location{Source: srcPlans, Path: "plans/" + id + ".yaml", Line: 1},
	}
}

// plan adds BF-1 (goodPlan) changed by mods.
func (e *estate) plan(mods ...func(*model.Backfill)) *estate {
	b := goodPlan("BF-1")
	for _, m := range mods {
		m(&b)
	}
	e.est.Backfills = append(e.est.Backfills, b)
	return e
}

func (e *estate) artifact(a model.Artifact, mods ...func(*model.Artifact)) *estate {
	for _, m := range mods {
		m(&a)
	}
	e.est.Artifacts = append(e.est.Artifacts, a)
	return e
}

func (e *estate) record(r model.DecisionRecord, mods ...func(*model.DecisionRecord)) *estate {
	for _, m := range mods {
		m(&r)
	}
	e.est.Records = append(e.est.Records, r)
	return e
}

// degrade marks a source as having failed for scope ("" taints it all).
func (e *estate) degrade(source, scope string) *estate {
	for i := range e.est.Coverage {
		if e.est.Coverage[i].Source == source {
			e.est.Coverage[i].Status = model.CoverageDegraded
			e.est.Coverage[i].Errors = append(e.est.Coverage[i].Errors, model.ScopeError{Scope: scope, Error: "503 from the API"})
		}
	}
	return e
}

// recordsUnread adds a records source whose unit scope did not answer: a
// decision record may be there, unread.
func (e *estate) recordsUnread(scope string) *estate {
	e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: "records", System: "records", Status: model.CoverageOK})
	return e.degrade("records", scope)
}

// Plan modifiers.
func completed(b *model.Backfill) {
	b.Status = model.StatusReplayed
	b.Timeline.StartedAt, b.Timeline.CompletedAt = done.Add(-48*time.Hour), done
}
func classified(b *model.Backfill) { b.Classification = model.ClassFinancial; b.KeepEvidence = true }
func running(b *model.Backfill) {
	b.Status = model.StatusRunning
	b.Timeline.StartedAt = done.Add(-48 * time.Hour)
}

// fullRecord is an archived decision record with every field the practice asks for.
func fullRecord(id string) model.DecisionRecord {
	return model.DecisionRecord{
		BackfillID: id, Purpose: "replay after outage", Range: model.Interval{Start: at("2026-08-01T00:00:00Z"), End: at("2026-08-08T00:00:00Z")},
		JobID: "daily_orders", ValidationQuery: "SELECT COUNT(*) FROM t", ApprovingOwner: "carol@example.com",
		FinalDataLocation: "p.d.orders", ArchivedAt: done.Add(72 * time.Hour),
		Source: model.Location{Source: srcPlans, Path: "records/" + id + ".md", Line: 1},
	}
}

// Artifacts of BF-1, live, seen by a source that answered.
func job(state model.State) model.Artifact {
	return model.Artifact{Kind: model.KindSchedulerJob, System: "airflow", Source: srcSched, Scope: "dags",
		URI: "airflow://s/dags/bf_1_replay", Name: "bf_1_replay", BackfillID: "BF-1", State: state}
}
func table() model.Artifact {
	return model.Artifact{Kind: model.KindTable, System: "bigquery", Source: srcWH, Scope: "p",
		URI: "bq://p/d/bf_1_tmp", Name: "bf_1_tmp", BackfillID: "bf_1", State: model.StateActive}
}
func grant() model.Artifact {
	return model.Artifact{Kind: model.KindGrant, System: "gcpiam", Source: srcIAM, Scope: "p",
		URI: "iam://p/roles/editor/sa", Name: "editor", BackfillID: "BF-1", State: model.StateActive,
		Attributes: model.TagsOf(map[string]string{model.AttrPrincipal: "serviceAccount:sa@p", model.AttrRole: "roles/editor"})}
}
func credential() model.Artifact {
	return model.Artifact{Kind: model.KindCredential, System: "postgres", Source: srcWH, Scope: "roles",
		URI: "postgres://w/roles/bf_1_writer", Name: "bf_1_writer", BackfillID: "BF-1", State: model.StateActive,
		Attributes: model.TagsOf(map[string]string{model.AttrLogin: "true", model.AttrPrincipal: "bf_1_writer"})}
}

func attr(k, v string) func(*model.Artifact) { return func(a *model.Artifact) { a.SetAttr(k, v) } }
func state(s model.State) func(*model.Artifact) {
	return func(a *model.Artifact) { a.State = s }
}
func expires(t time.Time) func(*model.Artifact) {
	return func(a *model.Artifact) { a.ExpiresAt = model.At(t) }
}

// evaluate runs the full catalogue (with opts) over the estate at when.
func evaluate(t *testing.T, e *estate, when time.Time, opts rules.Options) []model.Finding {
	t.Helper()
	eng, err := rules.New(opts)
	if err != nil {
		t.Fatalf("rules.New: %v", err)
	}
	fs := eng.Evaluate(correlate.Correlate(&e.est, correlate.MustSelector()), when)
	if len(opts.Severity) == 0 {
		// Every finding stands on a rung of its rule's ladder: the ladder
		// in docs/rules.md is what the rules do.
		for _, f := range fs {
			if r, ok := rules.Lookup(f.RuleID); ok && !r.User() && !r.OnLadder(f.Severity) {
				t.Errorf("%s finding is %s, not a rung of its ladder %v: %s", f.RuleID, f.Severity, r.Ladder, f.Message)
			}
		}
	}
	return fs
}

func ofRule(fs []model.Finding, id string) []model.Finding {
	var out []model.Finding
	for _, f := range fs {
		if f.RuleID == id {
			out = append(out, f)
		}
	}
	return out
}
