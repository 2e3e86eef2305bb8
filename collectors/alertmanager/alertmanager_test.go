package alertmanager

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

const (
	activeID  = "4e43c543-0cf6-4f8e-a827-8b98be88ad7d" // comment "BF-1234 replay: ...", mutes OrdersLag (critical)
	pendingID = "362514b1-4e99-406d-a9bd-5c5563a848d0" // backfill_id=~"bf-12.*": names no one backfill
	expiredID = "3718b247-382c-47fc-8491-e240456fbd7f" // backfill_id="bf-1234", severity="critical", expired
)

// The answers of a real Alertmanager 0.25 (testdata), read as a user
// would see them in the estate.
func TestSilencesOfARealAnswer(t *testing.T) {
	f := newFakeAM(t)
	sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %v", err, sink.Errors)
	}
	if len(sink.Artifacts) != 2 {
		t.Fatalf("%d silences reported, want the 2 tied to BF-1234 (not the open regex bf-12.*): %+v", len(sink.Artifacts), sink.Artifacts)
	}
	active := sink.Artifact("alertmanager://am/silences/" + activeID)
	if active == nil {
		t.Fatal("the silence named by its comment is missing")
	}
	want := map[string]string{
		model.AttrMatchers: `{alertname="OrdersLag"}`, model.AttrCreatedBy: "alice@example.com",
		model.AttrMutesCritical: "true", AttrMutedAlerts: "1", AttrMutedCritical: "1",
		AttrSilenceState: "active", model.AttrAPIURL: f.URL(), AttrComment: "BF-1234 replay: orders lag pages during the replay",
	}
	for k, v := range want {
		if got := active.Attr(k); got != v {
			t.Errorf("active silence %s = %q, want %q", k, got, v)
		}
	}
	if active.Kind != model.KindSilence || active.State != model.StateActive || active.BackfillID != "BF-1234" || active.Correlation != "comment" ||
		active.Scope != ScopeSilences || !active.ExpiresAt.Time().Equal(time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)) || active.Labels.Get("alertname") != "OrdersLag" {
		t.Errorf("active silence: %+v", active)
	}
	expired := sink.Artifact("alertmanager://am/silences/" + expiredID)
	if expired == nil || expired.State != model.StateExpired || expired.BackfillID != "bf-1234" || expired.Correlation != "label" ||
		expired.Attr(model.AttrMutesCritical) != "true" || expired.Attr(AttrMutedAlerts) != "0" {
		t.Errorf("expired silence (its matchers select severity=critical): %+v", expired)
	}
}

func TestTies(t *testing.T) {
	yes, no := true, false
	m := func(name, value string, regex bool, equal *bool) matcher {
		return matcher{Name: name, Value: value, IsRegex: regex, IsEqual: equal}
	}
	tests := []struct {
		name, comment string
		matchers      []matcher
		wantID, how   string
		others        string
	}{
		{"backfill label", "", []matcher{m("backfill_id", "BF-77", false, &yes)}, "BF-77", "label", ""},
		{"backfill label before 0.22 (no isEqual)", "", []matcher{m("backfill-id", "bf_77", false, nil)}, "bf_77", "label", ""},
		{"regex listing ids", "", []matcher{m("backfill_id", "bf-77|bf-78", true, &yes)}, "bf-77", "label", "bf-78"},
		{"open regex names none", "", []matcher{m("backfill_id", "bf-7.*", true, &yes)}, "", "", ""},
		{"negative matcher names none", "", []matcher{m("backfill_id", "bf-77", false, &no)}, "", "", ""},
		{"id in another matcher's value", "", []matcher{m("job", "bf_77_replay", false, &yes)}, "bf_77", "matcher", ""},
		{"id in the comment", "muting for BF-77: replay of March", []matcher{m("alertname", "OrdersLag", false, &yes)}, "BF-77", "comment", ""},
		{"label wins, comment adds", "also BF-78", []matcher{m("backfill_id", "bf-77", false, &yes)}, "bf-77", "label", "BF-78"},
		{"same id twice is one", "BF-77", []matcher{m("backfill_id", "bf_77", false, &yes)}, "bf_77", "label", ""},
		{"nothing", "maintenance window", []matcher{m("alertname", "OrdersLag", false, &yes)}, "", "", ""},
		{"an id inside a uuid-like word is not one", "3718bf12-aaaa", []matcher{m("alertname", "x", false, &yes)}, "", "", ""},
	}
	a := New()
	a.URL = "http://am:9093"
	if err := a.Init(env("am")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := a.tie(silence{ID: "s1", Comment: tt.comment, Matchers: tt.matchers})
			if ok != (tt.wantID != "") || got.backfillID != tt.wantID || got.how != tt.how || strings.Join(got.others, ",") != tt.others {
				t.Errorf("tie = %q by %q, others %v (ok %v); want %q by %q, others %q", got.backfillID, got.how, got.others, ok, tt.wantID, tt.how, tt.others)
			}
		})
	}
}

func TestTieByDeclaredAsset(t *testing.T) {
	a := New()
	a.URL = "http://am:9093"
	sel := correlate.MustSelector()
	sel.AddAssets([]model.Backfill{{ID: "BF-9", AssetsToRemove: []string{"alertmanager://am/silences/s1"}}})
	if err := a.Init(collectors.Env{Source: "am", Selector: sel, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	got, ok := a.tie(silence{ID: "s1", Matchers: []matcher{{Name: "alertname", Value: "OrdersLag"}}})
	if !ok || got.backfillID != "BF-9" || got.how != "asset" {
		t.Errorf("tie = %+v, want BF-9 by asset", got)
	}
}

func TestMatchersText(t *testing.T) {
	yes, no := true, false
	got := matchersText([]matcher{{Name: "a", Value: `x"y`, IsEqual: &yes}, {Name: "b", Value: "c|d", IsRegex: true}, {Name: "e", Value: "f", IsEqual: &no},
		{Name: "g", Value: "h.*", IsRegex: true, IsEqual: &no}})
	if want := `{a="x\"y", b=~"c|d", e!="f", g!~"h.*"}`; got != want {
		t.Errorf("matchersText = %s, want %s", got, want)
	}
}

func TestSelectsCritical(t *testing.T) {
	no := false
	for _, tt := range []struct {
		m    matcher
		want bool
	}{
		{matcher{Name: "severity", Value: "critical"}, true},
		{matcher{Name: "severity", Value: "critical|page", IsRegex: true}, true},
		{matcher{Name: "severity", Value: "crit.*", IsRegex: true}, true},
		{matcher{Name: "severity", Value: "critical-ish", IsRegex: true}, false},
		{matcher{Name: "severity", Value: "warning"}, false},
		{matcher{Name: "severity", Value: "critical", IsEqual: &no}, false},
		{matcher{Name: "priority", Value: "critical"}, false},
		{matcher{Name: "severity", Value: "(", IsRegex: true}, false},
	} {
		if got := selectsCritical([]matcher{tt.m}); got != tt.want {
			t.Errorf("selectsCritical(%+v) = %v, want %v", tt.m, got, tt.want)
		}
	}
}

// A malformed entry is an error at the silences unit and the others are
// still reported; a listing that is not a list fails the source.
func TestMalformedAnswers(t *testing.T) {
	good := map[string]any{"id": "s-good", "status": map[string]any{"state": "active"}, "comment": "BF-1",
		"startsAt": "2026-01-01T00:00:00Z", "endsAt": "2027-01-01T00:00:00Z",
		"matchers": []any{map[string]any{"name": "backfill_id", "value": "bf-1", "isRegex": false, "isEqual": true}}}
	bad := func(mod func(m map[string]any)) map[string]any {
		m := map[string]any{}
		for k, v := range good {
			m[k] = v
		}
		m["id"] = "s-bad"
		mod(m)
		return m
	}
	entries := []struct {
		name, want string
		entry      map[string]any
	}{
		{"no id", "without an id", bad(func(m map[string]any) { delete(m, "id") })},
		{"bad end", "endsAt", bad(func(m map[string]any) { m["endsAt"] = "tomorrow" })},
		{"unknown state", "unknown state", bad(func(m map[string]any) { m["status"] = map[string]any{"state": "muted"} })},
		{"no matchers", "no matchers", bad(func(m map[string]any) { m["matchers"] = []any{} })},
	}
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			f := newFakeAM(t)
			f.setSilences([]any{good, e.entry})
			sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
			if err != nil {
				t.Fatalf("Collect failed the source: %v", err)
			}
			if len(sink.Errors) != 1 || sink.Errors[0].Scope != ScopeSilences || !strings.Contains(sink.Errors[0].Error, e.want) {
				t.Errorf("errors %+v, want one at %s saying %q", sink.Errors, ScopeSilences, e.want)
			}
			if sink.Artifact("alertmanager://am/silences/s-good") == nil {
				t.Error("the good silence was not reported")
			}
		})
	}
	for _, body := range []string{"null", "", "{}", `{"silences": []}`, `[{"id": 3}]`, "<html>", `[{"id":"a"},{"id":"a"}]`} {
		t.Run("answer "+body, func(t *testing.T) {
			f := newFakeAM(t)
			f.mu.Lock()
			f.silences = []byte(body)
			f.mu.Unlock()
			_, err := collectortest.Collect(t, newCollector(t, f.URL()))
			if err == nil || !strings.Contains(err.Error(), "list silences") {
				t.Errorf("Collect = %v, want the source failed on its silence listing", err)
			}
		})
	}
}

// The alert listing only says how severe a silence is: when it fails, the
// silences are still reported and the unit says it did not fully answer.
func TestAlertListingFails(t *testing.T) {
	f := newFakeAM(t)
	f.set("/api/v2/alerts", status(500))
	sink, err := collectortest.Collect(t, newCollector(t, f.URL()))
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != ScopeSilences || !strings.Contains(sink.Errors[0].Error, "HTTP 500") {
		t.Errorf("errors %+v, want one at silences", sink.Errors)
	}
	a := sink.Artifact("alertmanager://am/silences/" + activeID)
	if a == nil || a.Attr(model.AttrMutesCritical) != "" || a.Attr(AttrMutedAlerts) != "" {
		t.Errorf("without the alerts, whether the silence mutes a critical alert is unknown: %+v", a)
	}
	if e := sink.Artifact("alertmanager://am/silences/" + expiredID); e == nil || e.Attr(model.AttrMutesCritical) != "true" {
		t.Errorf("a silence whose matchers select severity=critical says so without the alerts: %+v", e)
	}
}

// With check_alerts off, or no live backfill silence, /api/v2/alerts is
// not called.
func TestAlertsReadOnlyWhenNeeded(t *testing.T) {
	f := newFakeAM(t)
	f.set("/api/v2/alerts", status(500))
	c := newCollector(t, f.URL())
	c.CheckAlerts = false
	if sink, _ := collectortest.Collect(t, c); len(sink.Errors) != 0 {
		t.Errorf("check_alerts false still read the alerts: %+v", sink.Errors)
	}
	f.setSilences([]any{})
	if sink, _ := collectortest.Collect(t, newCollector(t, f.URL())); len(sink.Errors) != 0 {
		t.Errorf("no backfill silence, yet the alerts were read: %+v", sink.Errors)
	}
}

func TestAuth(t *testing.T) {
	f := newFakeAM(t)
	f.auth = "Bearer tok-123456"
	t.Setenv("TEST_AM_TOKEN", "tok-123456")
	c := New()
	c.URL, c.TokenEnv = f.URL(), "TEST_AM_TOKEN"
	if err := c.Init(env("am")); err != nil {
		t.Fatal(err)
	}
	if sink, err := collectortest.Collect(t, c); err != nil || len(sink.Artifacts) != 2 {
		t.Errorf("with the token: %v, %d silences", err, len(sink.Artifacts))
	}
	c = newCollector(t, f.URL())
	_, err := collectortest.Collect(t, c)
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Errorf("without the token: %v, want HTTP 401", err)
	}
}

func TestSampleConfig(t *testing.T) {
	inst := collectortest.DecodeSample(t, "sample.yaml")
	a := inst.Collector.(*Alertmanager)
	if inst.Type != "alertmanager" || a.Timeout != 30*time.Second || !a.CheckAlerts || a.URL == "" {
		t.Errorf("decoded %+v", a)
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	t.Setenv("TEST_AM_EMPTY", "")
	t.Setenv("TEST_AM_SET", "secret-value")
	base := map[string]any{"type": "alertmanager", "url": "http://am:9093"}
	collectortest.RejectsBadTimeouts(t, base)
	for _, tt := range []struct {
		extra map[string]any
		key   string
	}{
		{map[string]any{"url": ""}, "url"},
		{map[string]any{"url": "am:9093"}, "url"},
		{map[string]any{"url": "http://u:p@am:9093"}, "url"},
		{map[string]any{"token_env": "TEST_AM_EMPTY"}, "token_env"},
		{map[string]any{"password_env": "TEST_AM_SET"}, "username"},
		{map[string]any{"username": "u"}, "password_env"},
		{map[string]any{"username": "u", "password_env": "TEST_AM_SET", "token_env": "TEST_AM_SET"}, "token_env"},
		{map[string]any{"ca_file": "/nonexistent/ca.pem"}, "ca_file"},
		{map[string]any{"check_alert": true}, "check_alert"},
	} {
		e := map[string]any{}
		for k, v := range base {
			e[k] = v
		}
		for k, v := range tt.extra {
			e[k] = v
		}
		_, err := decode(e)
		if err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("%v: err %v, want one naming %s", tt.extra, err, tt.key)
		}
	}
}
