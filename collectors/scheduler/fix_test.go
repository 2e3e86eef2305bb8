package scheduler

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// fixEstate is BF-1234's enabled schedules in two accounts, and the
// production job's, audited through the source "aws-schedules".
func fixEstate(t *testing.T) (*fakeAWS, *Collector, fix.Inputs) {
	t.Helper()
	f := newFakeAWS(t)
	f.at(baseAccount, mainRegion).add("default", schedule("bf_1234_replay", "rate(1 day)", replayMachine,
		"Target", map[string]any{"Arn": replayMachine, "RoleArn": "arn:aws:iam::111111111111:role/scheduler-invoke", "Input": `{"day":"2026-01-01"}`,
			"RetryPolicy": map[string]any{"MaximumRetryAttempts": int64(2)}},
		"ScheduleExpressionTimezone", "Europe/Berlin", "Description", "replay", "ActionAfterCompletion", "NONE"))
	f.at(baseAccount, mainRegion).add("default", schedule("daily_revenue", "cron(0 2 * * ? *)", dailyMachine))
	f.at(roleAccount, mainRegion).add("default", schedule("bf_1234_replay", "rate(5 minutes)", replayMachine))
	c := newOn(t, f.URL, withAccounts)
	in := fixtest.Audit(t, correlate.MustSelector(), fixtest.PlanSource(t, "BF-1234", true),
		collectors.Instance{Name: "aws-schedules", Type: "scheduler", Collector: c})
	return f, c, in
}

// Disabling is reversible and taken without fix.allow: each schedule is
// written back whole, disabled, in its own account; deleting is taken
// only when fix.allow names it, after the disabling in the same run, and
// the production job's schedule is not touched.
func TestFixDisablesThenDeletes(t *testing.T) {
	f, c, in := fixEstate(t)
	actor, err := remedy.SystemNamed("scheduler").Acts(c)
	if err != nil {
		t.Fatal(err)
	}
	systems := map[string]remedy.Actor{"aws-schedules": actor}
	store := fixtest.OpenStore(t)
	results := fixtest.Apply(t, in, "BF-1234", systems, store)
	if s := fixtest.StatusOf(results, remedy.PauseJob); s != fix.StatusApplied {
		t.Fatalf("pause_job: %s (%+v)", s, results)
	}
	if s := fixtest.StatusOf(results, remedy.DeleteJob); s != fix.StatusNotAllowed {
		t.Errorf("delete_job without fix.allow: %s", s)
	}
	base := f.at(baseAccount, mainRegion)
	if len(base.updates) != 1 || len(f.at(roleAccount, mainRegion).updates) != 1 {
		t.Fatalf("updates %v / %v", base.updates, f.at(roleAccount, mainRegion).updates)
	}
	u := base.updates[0]
	target, _ := u["Target"].(map[string]any)
	retry, _ := target["RetryPolicy"].(map[string]any)
	if u["State"] != "DISABLED" || u["Name"] != "bf_1234_replay" || u["GroupName"] != "default" || u["ScheduleExpression"] != "rate(1 day)" ||
		u["ScheduleExpressionTimezone"] != "Europe/Berlin" || u["Description"] != "replay" || u["ActionAfterCompletion"] != "NONE" ||
		target["Input"] != `{"day":"2026-01-01"}` || retry["MaximumRetryAttempts"] != int64(2) {
		t.Errorf("the schedule was not written back whole and disabled: %v", u)
	}

	// With fix.allow naming delete_job, on a fresh estate: disabled, then
	// deleted in the same run (the disabling does not count as a change).
	f, c, in = fixEstate(t)
	actor, _ = remedy.SystemNamed("scheduler").Acts(c)
	systems = map[string]remedy.Actor{"aws-schedules": actor}
	results = fixtest.Apply(t, in, "BF-1234", systems, store, remedy.DeleteJob)
	for _, r := range results {
		if r.Item.Action != nil && r.Status != fix.StatusApplied {
			t.Errorf("%s %s: %s %s", r.Item.Action.Name, r.Item.ArtifactURI, r.Status, r.Reason)
		}
	}
	base = f.at(baseAccount, mainRegion)
	if !slices.Equal(base.deleted, []string{"default/bf_1234_replay"}) || !slices.Equal(f.at(roleAccount, mainRegion).deleted, []string{"default/bf_1234_replay"}) {
		t.Errorf("deleted %v / %v", base.deleted, f.at(roleAccount, mainRegion).deleted)
	}
	if len(base.schedules) != 1 || base.schedules[0]["Name"] != "daily_revenue" || base.schedules[0]["State"] != "ENABLED" {
		t.Errorf("the production job's schedule was touched: %v", base.schedules)
	}
	acts, err := store.FixActions(context.Background(), "BF-1234")
	if err != nil {
		t.Fatal(err)
	}
	applied := map[string]int{}
	for _, a := range acts {
		if a.Result == fix.StatusApplied {
			applied[a.Action]++
		}
	}
	if applied[remedy.PauseJob] != 4 || applied[remedy.DeleteJob] != 2 {
		t.Errorf("recorded as applied: %v", applied)
	}
}

// A schedule changed since the audit (another expression: made anew under
// the same name) is left alone.
func TestFixLeavesAChangedSchedule(t *testing.T) {
	f, c, in := fixEstate(t)
	base := f.at(baseAccount, mainRegion)
	base.mu.Lock()
	base.schedules[0]["ScheduleExpression"] = "rate(2 days)"
	base.mu.Unlock()
	actor, _ := remedy.SystemNamed("scheduler").Acts(c)
	results := fixtest.Apply(t, in, "BF-1234", map[string]remedy.Actor{"aws-schedules": actor}, fixtest.OpenStore(t), remedy.DeleteJob)
	for _, r := range results {
		if r.Item.ArtifactURI == "scheduler://aws-schedules/111111111111/eu-west-1/default/bf_1234_replay" && r.Item.Action != nil &&
			r.Item.Action.Name == remedy.PauseJob && (r.Status != fix.StatusSkipped || !strings.Contains(r.Reason, "expression was")) {
			t.Errorf("disabling a changed schedule: %s %s", r.Status, r.Reason)
		}
	}
	if len(base.updates) != 0 || len(base.deleted) != 0 {
		t.Errorf("updates %v, deleted %v", base.updates, base.deleted)
	}
}
