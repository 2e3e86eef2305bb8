package scheduler

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// uris lists the URIs of what a sink kept, with their ties, sorted.
func uris(s *collectors.TestSink) []string {
	var out []string
	for _, a := range s.Artifacts {
		out = append(out, a.URI+" "+a.BackfillID+" "+a.Correlation)
	}
	slices.Sort(out)
	return out
}

// The schedules of two accounts, each tied the way it says: its target's
// input, its group's tags, its name, its group's name, what it starts.
// The production job's schedule is not reported; a group whose tags do
// not read is an error at its own scope, and none of its schedules is
// reported; GetSchedule is called for the schedules kept only.
func TestCollectTiesSchedules(t *testing.T) {
	f := estate(t)
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"scheduler://aws-schedules/111111111111/eu-west-1/bf-1234-replays/ledger_replay bf-1234 folder",
		"scheduler://aws-schedules/111111111111/eu-west-1/default/bf_1234_replay_once BF-1234 label",
		"scheduler://aws-schedules/111111111111/eu-west-1/default/nightly_export bf_1234 target",
		"scheduler://aws-schedules/111111111111/eu-west-1/finance/ledger_once bf-2001 label",
		"scheduler://aws-schedules/222222222222/eu-west-1/default/bf_1234_replay bf_1234 name",
	}
	if got := uris(sink); !slices.Equal(got, want) {
		t.Errorf("artifacts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "111111111111/eu-west-1/broken" ||
		!strings.Contains(sink.Errors[0].Error, "tags of schedule group broken: Scheduler ListTagsForResource: InternalServerException") {
		t.Errorf("errors %+v, want the broken group's alone", sink.Errors)
	}
	once := sink.Artifact("scheduler://aws-schedules/111111111111/eu-west-1/default/bf_1234_replay_once")
	if once.Kind != model.KindSchedulerJob || once.State != model.StateEnabled || once.Scope != "111111111111/eu-west-1/default" ||
		once.Name != "default/bf_1234_replay_once" || !once.ExpiresAt.Time().Equal(time.Date(2026, 5, 20, 2, 0, 0, 0, time.UTC)) ||
		!once.CreatedAt.Time().Equal(created) || !once.ModifiedAt.Time().Equal(modified) {
		t.Errorf("the one-off: %+v", once)
	}
	for k, v := range map[string]string{model.AttrSchedule: "at(2026-05-20T02:00:00)", AttrOneOff: "true", AttrTargetARN: replayMachine,
		AttrGroup: "default", AttrActionAfterCompletion: "NONE"} {
		if got := once.Attr(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	ledger := sink.Artifact("scheduler://aws-schedules/111111111111/eu-west-1/bf-1234-replays/ledger_replay")
	if ledger.State != model.StateDisabled || ledger.Attr(AttrEndDate) != "2026-03-01T00:00:00Z" || !ledger.ExpiresAt.Time().Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) ||
		ledger.Attr(model.AttrStartDate) != "2026-01-05T00:00:00Z" || ledger.Attr(AttrOneOff) != "" {
		t.Errorf("the disabled schedule: %+v", ledger)
	}
	berlin := sink.Artifact("scheduler://aws-schedules/111111111111/eu-west-1/finance/ledger_once")
	if !berlin.ExpiresAt.Time().Equal(time.Date(2026, 2, 1, 2, 0, 0, 0, time.UTC)) || berlin.Owner != "fin-eng" || berlin.Attr(AttrTimeZone) != "Europe/Berlin" {
		t.Errorf("a one-off in Berlin time: %+v", berlin)
	}
	if n := f.at(baseAccount, mainRegion).gets; n != 4 {
		t.Errorf("%d GetSchedule calls in the caller's account, want 4 (one per schedule kept)", n)
	}
	if n, partial := sink.Read("111111111111/eu-west-1/broken", "schedules"); n != 1 || partial != 1 {
		t.Errorf("the broken group's schedules read %d (%d in part), want 1 in part", n, partial)
	}
	if n, _ := sink.Read("111111111111/eu-west-1", "schedule groups"); n != 4 {
		t.Errorf("%d groups read, want 4", n)
	}
}

// The default group, should AWS refuse to list its tags as a resource of
// tags, holds none: its schedules are read as ever. A group gone since it
// was listed holds none either. Another group refused is an error.
func TestGroupsWithoutTags(t *testing.T) {
	f := estate(t)
	s := f.at(baseAccount, mainRegion)
	s.invalidTags["default"], s.invalidTags["finance"] = true, true
	sink, err := collectortest.Collect(t, newOn(t, f.URL))
	if err != nil {
		t.Fatal(err)
	}
	if sink.Artifact("scheduler://aws-schedules/111111111111/eu-west-1/default/bf_1234_replay_once") == nil {
		t.Errorf("the default group's schedules were not read: %v %v", uris(sink), sink.Errors)
	}
	var scopes []string
	for _, e := range sink.Errors {
		scopes = append(scopes, e.Scope)
	}
	slices.Sort(scopes)
	if !slices.Equal(scopes, []string{"111111111111/eu-west-1/broken", "111111111111/eu-west-1/finance"}) {
		t.Errorf("errors at %v", scopes)
	}
}

// A role that cannot be assumed fails its account's unit, naming the role.
func TestRefusedRoleFailsItsAccountOnly(t *testing.T) {
	f := estate(t)
	f.Refuse(roleAccount)
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts))
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, e := range sink.Errors {
		failed = append(failed, e.Scope)
		if e.Scope == "222222222222/eu-west-1" && (!strings.Contains(e.Error, "role arn:aws:iam::222222222222:role/bfaudit-read") || !strings.Contains(e.Error, "AccessDenied")) {
			t.Errorf("the refused account's error does not name the role and the refusal: %s", e.Error)
		}
	}
	slices.Sort(failed)
	if !slices.Equal(failed, []string{"111111111111/eu-west-1/broken", "222222222222/eu-west-1"}) {
		t.Errorf("errors at %v", failed)
	}
}

// No credential is in any output: not the secret key (never sent), nor the
// session token (sent, in a header), nor an assumed role's, nor what a target's
// input holds beside the backfill id:
// not in what was collected, the report (its coverage names the refused
// role), nor the fix script and plan.
func TestNoCredentialInAnyOutput(t *testing.T) {
	f := estate(t)
	f.Refuse(roleAccount)
	sink, err := collectortest.Collect(t, newOn(t, f.URL, withAccounts))
	if err != nil {
		t.Fatal(err)
	}
	collected, _ := json.Marshal(sink)
	report, _ := json.Marshal(collectortest.Audit(t, []collectors.Instance{
		fixtest.PlanSource(t, "BF-1234", true),
		{Name: "aws-schedules", Type: "scheduler", Collector: newOn(t, f.URL, withAccounts)},
	}, fixtest.Now))
	healthy := estate(t)
	delete(healthy.at(baseAccount, mainRegion).failingTags, "broken")
	in := fixtest.Audit(t, correlate.MustSelector(), fixtest.PlanSource(t, "BF-1234", true),
		collectors.Instance{Name: "aws-schedules", Type: "scheduler", Collector: newOn(t, healthy.URL, withAccounts)})
	plan, err := fix.NewPlan(in, "BF-1234", func(remedy.Action) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var script, planJSON strings.Builder
	if err := fix.WriteScript(&script, plan); err != nil {
		t.Fatal(err)
	}
	if err := fix.WriteJSON(&planJSON, plan); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(script.String(), "aws scheduler delete-schedule") {
		t.Fatalf("the fix script has no command of the system: the check proves nothing\n%s", script.String())
	}
	for name, out := range map[string]string{"collected": string(collected), "report": string(report), "fix script": script.String(), "fix plan": planJSON.String()} {
		for _, secret := range []string{canarySecret, canaryToken, smithy.AssumedSecret, smithy.AssumedToken, "input-secret-do-not-print"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s holds %s", name, secret)
			}
		}
	}
}

func TestOneOff(t *testing.T) {
	for _, tc := range []struct {
		expr, zone string
		want       time.Time
		ok         bool
	}{
		{"at(2026-05-20T02:00:00)", "", time.Date(2026, 5, 20, 2, 0, 0, 0, time.UTC), true},
		{"at(2026-07-01T12:00:00)", "America/New_York", time.Date(2026, 7, 1, 16, 0, 0, 0, time.UTC), true},
		{"at(2026-07-01T12:00:00)", "Mars/Olympus", time.Time{}, false},
		{"rate(5 minutes)", "", time.Time{}, false},
		{"cron(0 2 * * ? *)", "", time.Time{}, false},
		{"at(tomorrow)", "", time.Time{}, false},
	} {
		got, ok := oneOff(tc.expr, tc.zone)
		if ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("oneOff(%q, %q) = %s %v, want %s %v", tc.expr, tc.zone, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/bfaudit-test")
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c := inst.Collector.(*Collector)
	if c.Timeout != 30*time.Second || len(c.Accounts) != 1 || c.Regions[0] != "eu-west-1" {
		t.Errorf("sample decoded as %+v", c.Settings)
	}
}

func TestBadSettingsNameTheKey(t *testing.T) {
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "scheduler", "regions": []any{"eu-west-1"}})
	for _, tc := range []struct {
		entry map[string]any
		want  string
	}{
		{map[string]any{"type": "scheduler"}, "regions: missing"},
		{map[string]any{"type": "scheduler", "regions": []any{"Europe"}}, "regions[0]"},
		{map[string]any{"type": "scheduler", "regions": []any{"eu-west-1"}, "organization": map[string]any{}}, "organization.role"},
	} {
		if _, err := collectors.Decode(tc.entry, collectors.Env{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error naming %s", tc.entry, err, tc.want)
		}
	}
}
