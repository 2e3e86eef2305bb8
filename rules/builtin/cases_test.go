package builtin_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/rules"
)

// ruleCase is one estate and what a rule must say about it.
type ruleCase struct {
	rule  string
	name  string
	build func() *estate
	now   time.Time // zero: now
	opts  func(t *testing.T) rules.Options
	want  int                                    // findings of rule
	check func(t *testing.T, fs []model.Finding) // on the rule's findings
}

// catchupJob is BF-1's replay job, enabled, catching up from start.
func catchupJob(start string) model.Artifact {
	a := job(model.StateEnabled)
	a.SetAttr(model.AttrCatchup, "true")
	a.SetAttr(model.AttrStartDate, start)
	return a
}

func severity(want model.Severity) func(*testing.T, []model.Finding) {
	return func(t *testing.T, fs []model.Finding) {
		t.Helper()
		for _, f := range fs {
			if f.Severity != want {
				t.Errorf("%s severity = %s, want %s (%s)", f.RuleID, f.Severity, want, f.Message)
			}
		}
	}
}

func mentions(sub string) func(*testing.T, []model.Finding) {
	return func(t *testing.T, fs []model.Finding) {
		t.Helper()
		for _, f := range fs {
			if !strings.Contains(f.Message+strings.Join(f.Evidence, "\n"), sub) {
				t.Errorf("%s finding does not mention %q: %s %v", f.RuleID, sub, f.Message, f.Evidence)
			}
		}
	}
}

func line(want int) func(*testing.T, []model.Finding) {
	return func(t *testing.T, fs []model.Finding) {
		t.Helper()
		for _, f := range fs {
			if f.Location == nil || f.Location.Line != want {
				t.Errorf("%s location = %v, want line %d", f.RuleID, f.Location, want)
			}
		}
	}
}

var waiverBF005 = rules.Waiver{Rule: "BF005", Backfill: "bf_1", Reason: "table kept for the finance audit", Approver: "carol@example.com",
	Expires: at("2026-10-01T00:00:00Z"), Key: "waivers[0]"}

func withWaiver(w rules.Waiver) func(*testing.T) rules.Options {
	return func(*testing.T) rules.Options { return rules.Options{Waivers: []rules.Waiver{w}} }
}

// acme1 flags empty temporary tables; acme9 converts without a guard and
// fails on a non-numeric row count; acme9Guarded does not.
var (
	acme1 = rules.UserRuleSpec{ID: "ACME1", Title: "Empty backfill table", Severity: model.SeverityLow, Remediation: "Drop it.",
		AppliesTo: rules.AppliesToArtifact, Expr: `artifact.kind == "table" && "rows" in artifact.attributes && artifact.attributes["rows"] == "0"`}
	acme9 = rules.UserRuleSpec{ID: "ACME9", Title: "Big table", Severity: model.SeverityLow, Remediation: "Look.",
		AppliesTo: rules.AppliesToArtifact, Expr: `"rows" in artifact.attributes && int(artifact.attributes["rows"]) > 1000000`}
	acme9Guarded = rules.UserRuleSpec{ID: "ACME9", Title: "Big table", Severity: model.SeverityLow, Remediation: "Look.",
		AppliesTo: rules.AppliesToArtifact, Expr: `"rows" in artifact.attributes && artifact.attributes["rows"].matches("^[0-9]+$") && int(artifact.attributes["rows"]) > 1000000`}
)

func withUser(specs ...rules.UserRuleSpec) func(*testing.T) rules.Options {
	return func(t *testing.T) rules.Options { return userRules(t, specs...) }
}

func userRules(t *testing.T, specs ...rules.UserRuleSpec) rules.Options {
	t.Helper()
	rs, err := rules.CompileUserRules(specs)
	if err != nil {
		t.Fatal(err)
	}
	return rules.Options{User: rs}
}

// firing cases: each rule raises exactly want findings.
var firing = []ruleCase{
	{rule: "BF001", name: "enabled job after completion and grace", want: 1,
		build: func() *estate { return newEstate().plan(completed).artifact(job(model.StateEnabled)) }},
	{rule: "BF001", name: "grace ends at its exact instant", want: 1, now: done.Add(7 * 24 * time.Hour),
		build: func() *estate { return newEstate().plan(completed).artifact(job(model.StateEnabled)) }},
	{rule: "BF001", name: "backfill expiry passed while still running", want: 1, now: at("2027-01-01T00:00:00Z"),
		build: func() *estate { return newEstate().plan(running).artifact(job(model.StateEnabled)) }},
	{rule: "BF001", name: "finished Kubernetes Job with no TTL", want: 1, check: mentions("no TTL"),
		build: func() *estate { return newEstate().plan(completed).artifact(finishedJob(time.Time{})) }},
	{rule: "BF001", name: "finished Job past its TTL still there", want: 1, check: mentions("TTL ran out"),
		build: func() *estate { return newEstate().plan(completed).artifact(finishedJob(done.Add(time.Hour))) }},
	{rule: "BF002", name: "paused job after grace", want: 1,
		build: func() *estate { return newEstate().plan(completed).artifact(job(model.StatePaused)) }},
	{rule: "BF002", name: "enabled job with no schedule after grace", want: 1, check: mentions("trigger-only job"),
		build: func() *estate {
			return newEstate().plan(completed).artifact(job(model.StateEnabled), attr(model.AttrTriggerOnly, "true"))
		}},
	{rule: "BF003", name: "grant after completion and grace", want: 1, check: severity(model.SeverityHigh),
		build: func() *estate { return newEstate().plan(completed).artifact(grant()) }},
	{rule: "BF003", name: "classified data raises to critical", want: 1, check: severity(model.SeverityCritical),
		build: func() *estate { return newEstate().plan(completed, classified).artifact(grant()) }},
	{rule: "BF003", name: "exactly at the IAM condition's expiry", want: 1, now: at("2026-09-20T00:00:00Z"),
		build: func() *estate {
			return newEstate().plan(running).artifact(grant(), attr(model.AttrCondition, `request.time < timestamp("2026-09-20T00:00:00Z")`))
		}},
	{rule: "BF004", name: "login role with no expiry after completion", want: 1, check: severity(model.SeverityHigh),
		build: func() *estate { return newEstate().plan(completed).artifact(credential()) }},
	{rule: "BF004", name: "classified data raises to critical", want: 1, check: severity(model.SeverityCritical),
		build: func() *estate { return newEstate().plan(completed, classified).artifact(credential()) }},
	{rule: "BF004", name: "a key used after the backfill completed says so", want: 1, check: mentions("last used 2026-09-25, after the backfill completed 2026-09-01"),
		build: func() *estate {
			return newEstate().plan(completed).artifact(credential(), func(a *model.Artifact) { a.LastUsedAt = model.At(at("2026-09-25T10:00:00Z")) })
		}},
	{rule: "BF005", name: "temp table with no expiration after grace", want: 1,
		build: func() *estate { return newEstate().plan(completed).artifact(table()) }},
	{rule: "BF005", name: "temp table past its own expiration", want: 1,
		build: func() *estate {
			return newEstate().plan(running).artifact(table(), expires(at("2026-09-15T00:00:00Z")))
		}},
	{rule: "BF006", name: "subscription with backlog after completion", want: 1, check: all(severity(model.SeverityHigh), mentions("312 messages")),
		build: func() *estate {
			return newEstate().plan(completed).artifact(model.Artifact{Kind: model.KindSubscription, Source: srcWH, URI: "pubsub://p/subscriptions/bf-1-retries",
				Name: "bf-1-retries", BackfillID: "BF-1", State: model.StateActive, Attributes: model.TagsOf(map[string]string{model.AttrMessages: "312"})})
		}},
	{rule: "BF006", name: "an empty retry queue after completion", want: 1, check: severity(model.SeverityMedium),
		build: func() *estate {
			return newEstate().plan(completed).artifact(model.Artifact{Kind: model.KindQueue, Source: srcWH, URI: "sqs://aws/111111111111/eu-west-1/bf-1-retries",
				Name: "bf-1-retries", BackfillID: "BF-1", State: model.StateActive, Attributes: model.TagsOf(map[string]string{model.AttrMessages: "0"})})
		}},
	{rule: "BF007", name: "alert that only watched the backfill", want: 1,
		build: func() *estate {
			return newEstate().plan(completed).artifact(model.Artifact{Kind: model.KindAlert, Source: srcWH, URI: "mon://alerts/bf-1-watch",
				BackfillID: "BF-1", State: model.StateEnabled, Attributes: model.TagsOf(map[string]string{model.AttrWatchesOnly: "true"})})
		}},
	{rule: "BF007", name: "dashboard made for the backfill", want: 1,
		build: func() *estate {
			return newEstate().plan(completed).artifact(model.Artifact{Kind: model.KindDashboard, Source: srcWH, URI: "grafana://g/dashboards/bf-1-replay",
				BackfillID: "BF-1", State: model.StateActive, Attributes: model.TagsOf(map[string]string{model.AttrTemporary: "true"})})
		}},
	{rule: "BF008", name: "completed a month ago, no record", want: 1,
		build: func() *estate { return newEstate().plan(completed) }},
	{rule: "BF008", name: "a source that reads no records failing changes nothing", want: 1, check: mentions("no decision record for BF-1"),
		build: func() *estate { return newEstate().plan(completed).degrade(srcSched, "dags") }},
	// Findings on an artifact stay reported while the record may be unread
	// (a missing one would be resolved), saying only what is known.
	{rule: "BF010", name: "table deleted while a records unit did not answer", want: 1,
		check: all(mentions("was deleted, and no archived decision record of BF-1 was read"), notMentions("before the decision record")),
		build: func() *estate {
			return newEstate().plan(completed).artifact(table(), state(model.StateDeleted)).recordsUnread("records/bf-1.md")
		}},
	{rule: "BF020", name: "group held while a records unit did not answer", want: 1,
		check: all(mentions("no decision record saying its final range and replay id was read"), notMentions("does not say")),
		build: func() *estate { return newEstate().plan(completed).artifact(group()).recordsUnread("records/bf-1.md") }},
	{rule: "BF008", name: "record exists but is not archived", want: 1, check: mentions("not archived"),
		build: func() *estate {
			return newEstate().plan(completed).record(fullRecord("BF-1"), func(r *model.DecisionRecord) { r.ArchivedAt = time.Time{} })
		}},
	{rule: "BF009", name: "record without final data location", want: 1, check: mentions("final_data_location"),
		build: func() *estate {
			return newEstate().plan(completed).record(fullRecord("BF-1"), func(r *model.DecisionRecord) { r.FinalDataLocation = "" })
		}},
	{rule: "BF010", name: "table deleted before the record was archived", want: 1,
		build: func() *estate {
			return newEstate().plan(completed).artifact(table(), state(model.StateDeleted))
		}},
	{rule: "BF010", name: "credential live after every table is gone", want: 1, check: mentions("still live"),
		build: func() *estate {
			return newEstate().plan(completed).record(fullRecord("BF-1")).
				artifact(table(), state(model.StateDeleted), func(a *model.Artifact) { a.ModifiedAt = model.At(done.Add(96 * time.Hour)) }).
				artifact(credential())
		}},
	{rule: "BF010", name: "plan retired before the record was archived", want: 1, check: line(1),
		build: func() *estate {
			return newEstate().plan(completed, func(b *model.Backfill) { b.Status = model.StatusRetired; b.Timeline.RetiredAt = done.Add(time.Hour) }).
				record(fullRecord("BF-1"))
		}},
	{rule: "BF011", name: "table tagged with an unknown backfill", want: 1,
		build: func() *estate {
			return newEstate().plan().artifact(table(), func(a *model.Artifact) { a.BackfillID = "bf_9999" })
		}},
	{rule: "BF012", name: "nobody owns the machinery", want: 1,
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) { b.Owner = "" }).artifact(table())
		}},
	{rule: "BF013", name: "MAX at the range end of a half-open range", want: 1, check: mentions("half-open"),
		build: func() *estate {
			return newEstate().plan(completed, func(b *model.Backfill) {
				b.Validation = &model.Validation{Rows: 10, Min: at("2026-08-01T00:05:00Z"), Max: at("2026-08-08T00:00:00Z")}
			})
		}},
	{rule: "BF013", name: "missing partitions", want: 1, check: mentions("2026-08-03"),
		build: func() *estate {
			return newEstate().plan(completed, func(b *model.Backfill) {
				b.Validation = &model.Validation{Rows: 10, Min: at("2026-08-01T00:05:00Z"), Max: at("2026-08-07T23:55:00Z"), MissingPartitions: []string{"2026-08-03"}}
			})
		}},
	{rule: "BF013", name: "no rows at all", want: 1,
		build: func() *estate {
			return newEstate().plan(completed, func(b *model.Backfill) { b.Validation = &model.Validation{Rows: 0} })
		}},
	{rule: "BF014", name: "labelled table not in assets_to_remove", want: 1,
		build: func() *estate {
			return newEstate().plan().artifact(table(), func(a *model.Artifact) { a.URI = "bq://p/d/bf_1_extra" })
		}},
	{rule: "BF015", name: "expired and still running", want: 1, now: at("2027-01-02T00:00:00Z"),
		build: func() *estate { return newEstate().plan(running) }},
	{rule: "BF015", name: "expired with runs queued", want: 1, now: at("2027-01-02T00:00:00Z"), check: mentions("queued"),
		build: func() *estate {
			return newEstate().plan(completed).artifact(model.Artifact{Kind: model.KindJobRun, Source: srcSched, URI: "airflow://s/runs/1",
				Name: "backfill__2026-08-05", BackfillID: "BF-1", State: model.StateActive, Attributes: model.TagsOf(map[string]string{model.AttrRunState: "queued"})})
		}},
	{rule: "BF101", name: "plan without a cleanup section", want: 1, check: mentions("expiry"),
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) { b.Expiry = time.Time{}; b.AssetsToRemove = nil })
		}},
	{rule: "BF102", name: "two plan elevated accesses without expiry", want: 2,
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) {
				b.ElevatedAccess = []model.ElevatedAccess{{Principal: "serviceAccount:sa@p", Role: "roles/editor"}, {Principal: "user:bob@example.com"}}
			})
		}},
	{rule: "BF102", name: "binding whose condition has only a lower bound", want: 1, check: mentions("no upper bound"),
		build: func() *estate {
			return newEstate().plan().artifact(grant(), attr(model.AttrCondition, `request.time > timestamp("2026-01-01T00:00:00Z")`))
		}},
	{rule: "BF102", name: "binding the collector saw without a time condition", want: 1,
		build: func() *estate { return newEstate().plan().artifact(grant(), attr(model.AttrTimeBound, "false")) }},
	{rule: "BF103", name: "no concurrency cap and the default pool", want: 1, check: mentions("no dedicated pool"),
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) { b.Concurrency = 0; b.Pool = "default_pool" })
		}},
	{rule: "BF103", name: "running scheduler job in the default pool", want: 1,
		build: func() *estate {
			return newEstate().plan(running).artifact(job(model.StateEnabled), attr(model.AttrPool, "default_pool"))
		}},
	{rule: "BF104", name: "depends on past in reverse", want: 1,
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) { b.DependsOnPast = true; b.Strategy = model.StrategyReverse })
		}},
	{rule: "BF104", name: "depends on past with concurrency 4", want: 1, check: mentions("concurrency 4"),
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) { b.DependsOnPast = true; b.Concurrency = 4 })
		}},
	{rule: "BF105", name: "emails not disabled", want: 1,
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) { b.SideEffects = []string{"emails"} })
		}},
	{rule: "BF106", name: "catch-up on and a start date a year old", want: 1,
		build: func() *estate {
			return newEstate().artifact(model.Artifact{Kind: model.KindSchedulerJob, Source: srcSched, URI: "airflow://s/dags/daily", Name: "daily",
				State: model.StatePaused, Attributes: model.TagsOf(map[string]string{model.AttrCatchup: "true", model.AttrStartDate: "2025-09-01T00:00:00Z"})})
		}},
	{rule: "BF106", name: "a replay job starting before its plan's range", want: 1,
		check: all(severity(model.SeverityMedium), mentions("replay job bf_1_replay of BF-1 has catch-up on and starts 2025-01-01, before its plan's range starts (2026-08-01)")),
		build: func() *estate {
			return newEstate().plan().artifact(catchupJob("2025-01-01T00:00:00Z"))
		}},
	{rule: "BF107", name: "append writes", want: 1,
		build: func() *estate { return newEstate().plan(func(b *model.Backfill) { b.WriteMode = model.WriteAppend }) }},
	{rule: "BF108", name: "financial data without evidence kept", want: 1,
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) { b.Classification = model.ClassFinancial })
		}},
	{rule: "BF109", name: "skipped dedup without a note", want: 1,
		build: func() *estate { return newEstate().plan(func(b *model.Backfill) { b.Special.SkippedDedup = true }) }},
	{rule: "BF110", name: "no trial interval", want: 1,
		build: func() *estate { return newEstate().plan(func(b *model.Backfill) { b.TrialInterval = false }) }},
	{rule: "BF111", name: "definition change without notice", want: 1,
		build: func() *estate {
			return newEstate().plan(completed, func(b *model.Backfill) { b.Trigger = model.TriggerDefinitionChange; b.ConsumersNotified = false })
		}},
	{rule: "BF900", name: "waiver expired at its exact instant", want: 1, opts: withWaiver(waiverBF005),
		build: func() *estate { return newEstate().plan(completed).artifact(table()) }},
	{rule: "BF901", name: "waiver matches nothing", want: 1, check: severity(model.SeverityInfo),
		opts:  withWaiver(rules.Waiver{Rule: "BF005", Backfill: "BF-404", Reason: "r", Approver: "a", Expires: at("2027-01-01T00:00:00Z")}),
		build: func() *estate { return newEstate().plan(completed).artifact(table()) }},
	{rule: "BF902", name: "user rule fails at run time", want: 1, check: mentions("ACME9"), opts: withUser(acme9),
		build: func() *estate { return newEstate().plan().artifact(table(), attr(model.AttrRows, "many")) }},
	{rule: "ACME1", name: "user artifact rule", want: 1, opts: withUser(acme1),
		build: func() *estate { return newEstate().plan(completed).artifact(table(), attr(model.AttrRows, "0")) }},
}

// quiet cases: the rule stays silent.
var quiet = []ruleCase{
	// A decision record may be in a records unit that did not answer: no
	// rule says about the whole backfill that there is none (a history
	// store carries their last verdicts).
	{rule: "BF008", name: "no record read while a records unit did not answer",
		build: func() *estate { return newEstate().plan(completed).recordsUnread("records/bf-1.md") }},
	{rule: "BF027", name: "a scheduler backfill while a records unit did not answer",
		build: func() *estate { return newEstate().scheduled("BF-9", schedulerView()).recordsUnread("records") }},
	{rule: "BF001", name: "one second before the grace ends", now: done.Add(7*24*time.Hour - time.Second),
		build: func() *estate { return newEstate().plan(completed).artifact(job(model.StateEnabled)) }},
	{rule: "BF001", name: "finished Job whose TTL is still ahead", now: done.Add(30 * time.Minute),
		build: func() *estate { return newEstate().plan(completed).artifact(finishedJob(done.Add(time.Hour))) }},
	{rule: "BF001", name: "finished Job within the grace", now: done.Add(24 * time.Hour),
		build: func() *estate { return newEstate().plan(completed).artifact(finishedJob(time.Time{})) }},
	{rule: "BF001", name: "paused job is BF002's",
		build: func() *estate { return newEstate().plan(completed).artifact(job(model.StatePaused)) }},
	{rule: "BF001", name: "a job with no schedule is not still scheduled",
		build: func() *estate {
			return newEstate().plan(completed).artifact(job(model.StateEnabled), attr(model.AttrTriggerOnly, "true"))
		}},
	{rule: "BF002", name: "converted into a runbook entry",
		build: func() *estate {
			return newEstate().plan(completed).artifact(job(model.StatePaused), attr(model.AttrRunbook, "runbooks/orders.md"))
		}},
	{rule: "BF003", name: "grace not yet over", now: done.Add(47 * time.Hour),
		build: func() *estate { return newEstate().plan(completed).artifact(grant()) }},
	{rule: "BF003", name: "one second before the IAM condition's expiry", now: at("2026-09-19T23:59:59Z"),
		build: func() *estate {
			return newEstate().plan(running).artifact(grant(), attr(model.AttrCondition, `request.time < timestamp("2026-09-20T00:00:00Z")`))
		}},
	{rule: "BF003", name: "binding already expired", build: func() *estate {
		return newEstate().plan(completed).artifact(grant(), state(model.StateExpired))
	}},
	{rule: "BF004", name: "role that cannot log in",
		build: func() *estate {
			return newEstate().plan(completed).artifact(credential(), attr(model.AttrLogin, "false"))
		}},
	{rule: "BF004", name: "key whose validity already ended",
		build: func() *estate {
			return newEstate().plan(completed).artifact(credential(), expires(done.Add(time.Hour)))
		}},
	{rule: "BF005", name: "expiration set and ahead",
		build: func() *estate {
			return newEstate().plan(completed).artifact(table(), expires(at("2026-12-01T00:00:00Z")))
		}},
	{rule: "BF005", name: "the table is the final data location",
		build: func() *estate {
			return newEstate().plan(completed).record(fullRecord("BF-1"), func(r *model.DecisionRecord) { r.FinalDataLocation = "bq://p/d/bf_1_tmp" }).artifact(table())
		}},
	{rule: "BF006", name: "subscription detached",
		build: func() *estate {
			return newEstate().plan(completed).artifact(model.Artifact{Kind: model.KindSubscription, Source: srcWH, URI: "pubsub://p/subscriptions/bf-1-retries",
				BackfillID: "BF-1", State: model.StateActive, Attributes: model.TagsOf(map[string]string{model.AttrDetached: "true"})})
		}},
	{rule: "BF007", name: "alert disabled",
		build: func() *estate {
			return newEstate().plan(completed).artifact(model.Artifact{Kind: model.KindAlert, Source: srcWH, URI: "mon://alerts/bf-1-watch",
				BackfillID: "BF-1", State: model.StateDisabled, Attributes: model.TagsOf(map[string]string{model.AttrWatchesOnly: "true"})})
		}},
	{rule: "BF007", name: "alert that watches more than the backfill",
		build: func() *estate {
			return newEstate().plan(completed).artifact(model.Artifact{Kind: model.KindAlert, Source: srcWH, URI: "mon://alerts/orders-lag",
				BackfillID: "BF-1", State: model.StateEnabled})
		}},
	{rule: "BF008", name: "archived record",
		build: func() *estate { return newEstate().plan(completed).record(fullRecord("BF-1")) }},
	{rule: "BF008", name: "completed 13 days ago", now: done.AddDate(0, 0, 13),
		build: func() *estate { return newEstate().plan(completed) }},
	{rule: "BF009", name: "complete record",
		build: func() *estate { return newEstate().plan(completed).record(fullRecord("BF-1")) }},
	{rule: "BF010", name: "deleted table from a degraded source is not evidence",
		build: func() *estate {
			return newEstate().plan(completed).artifact(table(), state(model.StateDeleted)).artifact(credential()).degrade(srcWH, "p")
		}},
	{rule: "BF010", name: "tables deleted after the record was archived",
		build: func() *estate {
			return newEstate().plan(completed).record(fullRecord("BF-1")).
				artifact(table(), state(model.StateDeleted), func(a *model.Artifact) { a.ModifiedAt = model.At(done.Add(96 * time.Hour)) })
		}},
	{rule: "BF010", name: "retired after archiving, in order",
		build: func() *estate {
			return newEstate().plan(completed, func(b *model.Backfill) {
				b.Status = model.StatusRetired
				b.Timeline.RetiredAt = done.Add(96 * time.Hour)
			}).
				record(fullRecord("BF-1"))
		}},
	{rule: "BF011", name: "tagged with a known backfill",
		build: func() *estate { return newEstate().plan().artifact(table()) }},
	{rule: "BF012", name: "plan owner answers for it",
		build: func() *estate { return newEstate().plan().artifact(table()) }},
	{rule: "BF013", name: "covers the half-open range",
		build: func() *estate {
			return newEstate().plan(completed, func(b *model.Backfill) {
				b.Validation = &model.Validation{Rows: 10, Min: at("2026-08-01T00:05:00Z"), Max: at("2026-08-07T23:55:00Z")}
			})
		}},
	{rule: "BF013", name: "query failed: no conclusion", build: func() *estate {
		return newEstate().plan(completed, func(b *model.Backfill) { b.Validation = &model.Validation{Error: "permission denied"} })
	}},
	{rule: "BF014", name: "declared in assets_to_remove",
		build: func() *estate { return newEstate().plan().artifact(table()) }},
	{rule: "BF014", name: "grant of a declared elevated principal",
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) {
				b.ElevatedAccess = []model.ElevatedAccess{{Principal: "serviceAccount:sa@p", Expiry: at("2026-12-01T00:00:00Z")}}
			}).artifact(grant())
		}},
	{rule: "BF015", name: "running before its expiry",
		build: func() *estate { return newEstate().plan(running) }},
	{rule: "BF101", name: "plan with a cleanup section", build: func() *estate { return newEstate().plan() }},
	{rule: "BF102", name: "binding with an expiry condition",
		build: func() *estate {
			return newEstate().plan().artifact(grant(), attr(model.AttrTimeBound, "false"),
				attr(model.AttrCondition, `resource.name.startsWith("x") && request.time < timestamp("2026-12-01T00:00:00Z")`))
		}},
	{rule: "BF102", name: "plan access with an expiry",
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) {
				b.ElevatedAccess = []model.ElevatedAccess{{Principal: "serviceAccount:sa@p", Expiry: at("2026-12-01T00:00:00Z")}}
			})
		}},
	{rule: "BF103", name: "capped in a dedicated pool", build: func() *estate { return newEstate().plan() }},
	{rule: "BF103", name: "bulk run needs no cap",
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) { b.Strategy = model.StrategyBulk; b.Concurrency = 0 })
		}},
	{rule: "BF104", name: "depends on past, one interval at a time",
		build: func() *estate { return newEstate().plan(func(b *model.Backfill) { b.DependsOnPast = true }) }},
	{rule: "BF104", name: "already replayed",
		build: func() *estate {
			return newEstate().plan(completed, func(b *model.Backfill) { b.DependsOnPast = true; b.Strategy = model.StrategyParallel })
		}},
	{rule: "BF105", name: "side effects disabled",
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) { b.SideEffects = []string{"emails"}; b.SideEffectsDisabled = true })
		}},
	{rule: "BF106", name: "a backfill's replay job catching up from its plan's range start: the replay itself",
		build: func() *estate {
			return newEstate().plan().artifact(catchupJob("2026-08-01T00:00:00Z"))
		}},
	{rule: "BF106", name: "recent start date",
		build: func() *estate {
			return newEstate().artifact(model.Artifact{Kind: model.KindSchedulerJob, Source: srcSched, URI: "airflow://s/dags/daily", Name: "daily",
				State: model.StateEnabled, Attributes: model.TagsOf(map[string]string{model.AttrCatchup: "true", model.AttrStartDate: "2026-09-20T00:00:00Z"})})
		}},
	{rule: "BF106", name: "catch-up off",
		build: func() *estate {
			return newEstate().artifact(model.Artifact{Kind: model.KindSchedulerJob, Source: srcSched, URI: "airflow://s/dags/daily", Name: "daily",
				State: model.StateEnabled, Attributes: model.TagsOf(map[string]string{model.AttrCatchup: "false", model.AttrStartDate: "2020-01-01T00:00:00Z"})})
		}},
	{rule: "BF107", name: "partition overwrite", build: func() *estate { return newEstate().plan() }},
	{rule: "BF108", name: "financial data, evidence kept", build: func() *estate { return newEstate().plan(classified) }},
	{rule: "BF109", name: "direct write with a note",
		build: func() *estate {
			return newEstate().plan(func(b *model.Backfill) {
				b.Special = model.SpecialSemantics{DirectWrite: true, Note: "one-off: the loader was down"}
			})
		}},
	{rule: "BF110", name: "trial interval run first", build: func() *estate { return newEstate().plan() }},
	{rule: "BF111", name: "outage replay changes no published numbers",
		build: func() *estate { return newEstate().plan(func(b *model.Backfill) { b.ConsumersNotified = false }) }},
	{rule: "BF900", name: "waiver one second before it expires", now: at("2026-09-30T23:59:59Z"), opts: withWaiver(waiverBF005),
		build: func() *estate { return newEstate().plan(completed).artifact(table()) }},
	{rule: "BF901", name: "waiver matches nothing but a source did not answer",
		opts:  withWaiver(rules.Waiver{Rule: "BF005", Backfill: "BF-404", Reason: "r", Approver: "a", Expires: at("2027-01-01T00:00:00Z")}),
		build: func() *estate { return newEstate().plan(completed).artifact(table()).degrade(srcWH, "") }},
	{rule: "BF901", name: "waiver in use",
		opts:  withWaiver(rules.Waiver{Rule: "BF005", Backfill: "BF-1", Reason: "r", Approver: "a", Expires: at("2027-01-01T00:00:00Z")}),
		build: func() *estate { return newEstate().plan(completed).artifact(table()) }},
	{rule: "BF902", name: "user rule guards its conversion", opts: withUser(acme9Guarded),
		build: func() *estate { return newEstate().plan().artifact(table(), attr(model.AttrRows, "many")) }},
	{rule: "ACME1", name: "user artifact rule on a table with rows", opts: withUser(acme1),
		build: func() *estate { return newEstate().plan(completed).artifact(table(), attr(model.AttrRows, "42")) }},
}

// finishedJob is a Kubernetes Job of BF-1 that finished at done; expires is
// finish + ttlSecondsAfterFinished, zero when it has no TTL.
func finishedJob(expires time.Time) model.Artifact {
	a := model.Artifact{Kind: model.KindJobRun, System: "kubernetes", Source: srcSched, URI: "kubernetes://k/ns/jobs/bf-1-replay-1",
		Name: "bf-1-replay-1", BackfillID: "BF-1", ModifiedAt: model.At(done), ExpiresAt: model.At(expires),
		Attributes: model.TagsOf(map[string]string{model.AttrFinished: "true", model.AttrRunState: "success"})}
	return a
}
