package alertmanager_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/alertmanager"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// realAM returns the address of the Alertmanager the tests create
// silences in, or skips.
func realAM(t *testing.T) string {
	t.Helper()
	u := os.Getenv("BFAUDIT_TEST_ALERTMANAGER_URL")
	if u == "" {
		t.Skip("set BFAUDIT_TEST_ALERTMANAGER_URL=http://127.0.0.1:9093 (a running Alertmanager, API v2; .ci/run starts one from the Debian package) to run the real-server tests")
	}
	return strings.TrimRight(u, "/")
}

// uniqueID is a backfill id no other test run uses, so runs sharing the
// server do not see each other's silences.
func uniqueID(t *testing.T) string {
	b := make([]byte, 3)
	rand.Read(b)
	n := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
	return fmt.Sprintf("BF-%d", 100000+n%900000)
}

func call(t *testing.T, method, url string, body any, out any) {
	t.Helper()
	var r *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	} else {
		r = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: HTTP %d", method, url, resp.StatusCode)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

// createSilence creates a silence through the API and expires it when the
// test ends.
func createSilence(t *testing.T, am string, matchers []map[string]any, ends time.Time, by, comment string) string {
	t.Helper()
	var out struct {
		SilenceID string `json:"silenceID"`
	}
	call(t, http.MethodPost, am+"/api/v2/silences", map[string]any{"matchers": matchers, "startsAt": time.Now().UTC().Format(time.RFC3339),
		"endsAt": ends.UTC().Format(time.RFC3339), "createdBy": by, "comment": comment}, &out)
	if out.SilenceID == "" {
		t.Fatal("no silence id")
	}
	t.Cleanup(func() { expire(t, am, out.SilenceID) })
	return out.SilenceID
}

func expire(t *testing.T, am, id string) {
	req, _ := http.NewRequest(http.MethodDelete, am+"/api/v2/silence/"+id, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

func eq(name, value string) map[string]any {
	return map[string]any{"name": name, "value": value, "isRegex": false, "isEqual": true}
}

// pushAlert sends one alert to Alertmanager, as Prometheus would.
func pushAlert(t *testing.T, am string, labels map[string]string) {
	t.Helper()
	now := time.Now().UTC()
	call(t, http.MethodPost, am+"/api/v2/alerts", []map[string]any{{"labels": labels,
		"startsAt": now.Add(-time.Minute).Format(time.RFC3339), "endsAt": now.Add(10 * time.Minute).Format(time.RFC3339)}}, nil)
}

func collector(t *testing.T, url, name string) collectors.Instance {
	t.Helper()
	a := alertmanager.New()
	a.URL, a.Timeout = url, 5*time.Second
	a.Retry = remote.RetryPolicy{Attempts: 2, Base: 10 * time.Millisecond}
	if err := a.Init(collectors.Env{Source: name, Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return collectors.Instance{Name: name, Type: "alertmanager", Collector: a}
}

func TestRealServerSilences(t *testing.T) {
	am := realAM(t)
	id := uniqueID(t)
	label := strings.ToLower(id)
	ends := time.Now().Add(90 * 24 * time.Hour).Truncate(time.Second)
	byLabel := createSilence(t, am, []map[string]any{eq("backfill_id", label), eq("severity", "critical")}, ends, "alice@example.com", "replay")
	byComment := createSilence(t, am, []map[string]any{eq("alertname", "OrdersLag"+label)}, ends, "bob", id+" replay: mute orders lag")
	other := createSilence(t, am, []map[string]any{eq("alertname", "Unrelated"+label)}, ends, "carol", "maintenance")
	pushAlert(t, am, map[string]string{"alertname": "OrdersLag" + label, "severity": "critical"})

	in := collector(t, am, "am")
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), in.Collector, sink); err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	uri := func(sid string) string { return "alertmanager://am/silences/" + sid }
	a := sink.Artifact(uri(byLabel))
	if a == nil || a.BackfillID != label || a.Correlation != "label" || a.State != model.StateActive || !a.ExpiresAt.Time().Equal(ends) ||
		a.Attr(model.AttrCreatedBy) != "alice@example.com" || a.Attr(model.AttrMutesCritical) != "true" ||
		a.Attr(model.AttrMatchers) != fmt.Sprintf(`{backfill_id=%q, severity="critical"}`, label) {
		t.Errorf("silence by label: %+v", a)
	}
	c := sink.Artifact(uri(byComment))
	if c == nil || c.BackfillID != id || c.Correlation != "comment" || c.Attr(alertmanager.AttrMutedCritical) != "1" || c.Attr(model.AttrMutesCritical) != "true" {
		t.Errorf("silence by comment, muting a pushed critical alert: %+v", c)
	}
	if sink.Artifact(uri(other)) != nil {
		t.Error("a silence naming no backfill was reported")
	}

	expire(t, am, byLabel)
	sink = collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), in.Collector, sink); err != nil {
		t.Fatal(err)
	}
	if a := sink.Artifact(uri(byLabel)); a == nil || a.State != model.StateExpired {
		t.Errorf("an expired silence is reported as expired: %+v", a)
	}
}

// planned plays a plans source: one plan per id, replayed 30 days ago,
// expired 20 days ago.
type planned []string

// Init takes nothing from the Env.
func (planned) Init(collectors.Env) error { return nil }

// Units declares the whole source.
func (planned) Units(context.Context) ([]string, error) { return []string{""}, nil }

func (p planned) CollectUnit(_ context.Context, _ string, sink collectors.Sink) error {
	now := time.Now().UTC()
	for _, id := range p {
		sink.AddBackfill(model.Backfill{ID: id, Origin: model.OriginPlan, Owner: "data-eng@example.com", Status: model.StatusReplayed,
			Timeline: model.Timeline{StartedAt: now.Add(-32 * 24 * time.Hour), CompletedAt: now.Add(-30 * 24 * time.Hour)},
			Expiry:   now.Add(-20 * 24 * time.Hour), Source: model.Location{Source: "plans", Path: "plans/" + id + ".yaml"}})
	}
	sink.AddRead("", "plans", 1, 0)
	return nil
}

// Issue 17, "Done when": against the real Alertmanager, a backfill whose
// silence outlived it is flagged with the silence id, creator and end
// time; an expired silence is quiet; a down server degrades only its
// source.
func TestRealServerAudit(t *testing.T) {
	am := realAM(t)
	lingering, expired := uniqueID(t), uniqueID(t)
	ends := time.Now().Add(60 * 24 * time.Hour).Truncate(time.Second)
	sid := createSilence(t, am, []map[string]any{eq("backfill_id", strings.ToLower(lingering))}, ends, "alice@example.com", "replay of "+lingering)
	gone := createSilence(t, am, []map[string]any{eq("backfill_id", strings.ToLower(expired))}, ends, "bob@example.com", "replay")
	expire(t, am, gone)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now

	instances := []collectors.Instance{
		{Name: "plans", Type: "records", Collector: planned{lingering, expired}},
		collector(t, am, "am"),
		collector(t, down, "am-down"),
	}
	rep := collectortest.Audit(t, instances, time.Now().UTC())
	for _, c := range rep.Coverage {
		switch c.Source {
		case "am-down":
			if c.Status != model.CoverageFailed || !strings.Contains(c.Error, "list silences") {
				t.Errorf("the down server's coverage: %+v", c)
			}
		default:
			if c.Status != model.CoverageOK {
				t.Errorf("%s degraded by another source being down: %+v", c.Source, c)
			}
		}
	}
	var got []model.Finding
	for _, f := range rep.Findings {
		if f.RuleID == "BF016" {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d BF016 findings, want 1 (the expired silence is quiet): %+v", len(got), got)
	}
	f := got[0]
	text := f.Message + "\n" + strings.Join(f.Evidence, "\n")
	for _, want := range []string{sid, "alice@example.com", ends.UTC().Format("2006-01-02 15:04 MST"), "amtool --alertmanager.url=" + am + " silence expire " + sid} {
		if !strings.Contains(text, want) {
			t.Errorf("BF016 does not say %q:\n%s", want, text)
		}
	}
	if !model.SameID(f.BackfillID, lingering) || f.Severity != model.SeverityHigh || f.Step != model.StepNormalized {
		t.Errorf("BF016 finding: %+v", f)
	}
	for _, b := range rep.Backfills {
		if model.SameID(b.Backfill.ID, lingering) && b.Lifecycle.Next > model.StepNormalized {
			t.Errorf("%s reached %s though its silence still mutes alerts", lingering, b.Lifecycle.Reached)
		}
	}
}
