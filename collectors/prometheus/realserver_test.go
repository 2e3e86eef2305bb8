package prometheus_test

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/prometheus"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// The real server has loaded testdata/realserver/rules.yml (.ci/run starts
// it so); these are the rules of it that are backfill machinery.
var realWant = map[string]struct {
	id, how, watches string
}{
	"BF9101ReplayLag":        {"bf-9101", "expression", "true"},
	"BF9101ReplayStuck":      {"bf-9101", "label", "false"},
	"bf_9101:rows:rate5m":    {"bf_9101", "name", "true"},
	"RefundsLagDuringReplay": {"BF-9103", "annotation", "false"},
	"SharedReplayLagA":       {"bf-7001", "expression", "true"},
	"SharedReplayLagB":       {"bf-7002", "expression", "true"},
}

func realProm(t *testing.T) string {
	t.Helper()
	u := os.Getenv("BFAUDIT_TEST_PROMETHEUS_URL")
	if u == "" {
		t.Skip("set BFAUDIT_TEST_PROMETHEUS_URL=http://127.0.0.1:9090 (a running Prometheus that loaded collectors/prometheus/testdata/realserver/rules.yml; .ci/run starts one from the Debian package) to run the real-server tests")
	}
	return strings.TrimRight(u, "/")
}

func apiSource(t *testing.T, url, name string) collectors.Instance {
	t.Helper()
	p := prometheus.New()
	p.URL, p.Timeout, p.GroupLimit = url, 5*time.Second, 1
	p.Retry = remote.RetryPolicy{Attempts: 2, Base: 10 * time.Millisecond}
	if err := p.Init(collectors.Env{Source: name, Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return collectors.Instance{Name: name, Type: "prometheus", Collector: p}
}

func byName(t *testing.T, c collectors.Collector) map[string]model.Artifact {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), c, sink); err != nil || len(sink.Errors) > 0 {
		t.Fatalf("Collect: %v %+v", err, sink.Errors)
	}
	out := map[string]model.Artifact{}
	for _, a := range sink.Artifacts {
		out[a.Name] = a
	}
	return out
}

func TestRealServerRules(t *testing.T) {
	got := byName(t, apiSource(t, realProm(t), "prom").Collector)
	if len(got) != len(realWant) {
		t.Errorf("%d rules reported, want %d: %v", len(got), len(realWant), got)
	}
	for name, w := range realWant {
		a, ok := got[name]
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		if a.BackfillID != w.id || a.Correlation != w.how || a.Attr(model.AttrWatchesOnly) != w.watches || a.Attr(prometheus.AttrHealth) == "err" {
			t.Errorf("%s: %+v", name, a)
		}
		if st := a.Attr(model.AttrAlertState); a.Attr(prometheus.AttrRuleType) == "alerting" && st != "inactive" && st != "pending" && st != "firing" {
			t.Errorf("%s: alert state %q", name, st)
		}
	}
	if r := got["RefundsLagDuringReplay"]; r.Attr(model.AttrTemporary) != "true" || r.Owner != "alice@example.com" {
		t.Errorf("RefundsLagDuringReplay: %+v", r)
	}
	if r := got["bf_9101:rows:rate5m"]; r.Attr(prometheus.AttrOtherBackfills) != "bf-9102" {
		t.Errorf("the recording rule selects bf-9102 too: %+v", r)
	}
	if a, b := got["SharedReplayLagA"], got["SharedReplayLagB"]; a.Attr(prometheus.AttrOtherBackfills) != "bf-7002" || b.Attr(prometheus.AttrOtherBackfills) != "bf-7001" {
		t.Errorf("each shared alert lists the other id: %+v %+v", a, b)
	}
}

// The same rules read from the server and from the file it loaded are the
// same machinery, tied the same way.
func TestRealServerAgreesWithItsRuleFile(t *testing.T) {
	fromAPI := byName(t, apiSource(t, realProm(t), "prom").Collector)
	p := prometheus.New()
	p.RuleFiles = []string{"testdata/realserver/rules.yml"}
	if err := p.Init(collectors.Env{Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	fromFile := byName(t, p)
	for name, a := range fromAPI {
		f, ok := fromFile[name]
		if !ok {
			t.Errorf("%s is on the server but not read from its file", name)
			continue
		}
		if a.BackfillID != f.BackfillID || a.Correlation != f.Correlation || a.Attr(model.AttrWatchesOnly) != f.Attr(model.AttrWatchesOnly) ||
			a.Attr(model.AttrExpr) != f.Attr(model.AttrExpr) || a.Attr(prometheus.AttrFor) != f.Attr(prometheus.AttrFor) {
			t.Errorf("%s differs:\n server %+v\n file   %+v", name, a, f)
		}
	}
	if len(fromFile) != len(fromAPI) {
		t.Errorf("file %d rules, server %d", len(fromFile), len(fromAPI))
	}
}

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
			Expiry:   now.Add(20 * 24 * time.Hour), Source: model.Location{Source: "plans", Path: "plans/" + id + ".yaml"}})
	}
	sink.AddRead("", "plans", 1, 0)
	return nil
}

// BF007 fed by the real Prometheus: the rules that watch only BF-9101's
// series are flagged once its replay is over; the one tied only by a
// label is not; a Prometheus that is down fails only its own source.
func TestRealServerAudit(t *testing.T) {
	url := realProm(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	// BF-9102 is over too: the recording rule selects its series as well,
	// and an artifact naming a backfill nothing describes is never
	// concluded lingering.
	instances := []collectors.Instance{{Name: "plans", Type: "records", Collector: planned{"BF-9101", "BF-9102"}},
		apiSource(t, url, "prom"), apiSource(t, down, "prom-down")}
	rep := collectortest.Audit(t, instances, time.Now().UTC())
	for _, c := range rep.Coverage {
		if want := map[bool]model.CoverageStatus{true: model.CoverageFailed, false: model.CoverageOK}[c.Source == "prom-down"]; c.Status != want {
			t.Errorf("%s coverage %s, want %s: %+v", c.Source, c.Status, want, c)
		}
	}
	flagged := map[string]bool{}
	for _, f := range rep.Findings {
		if f.RuleID == "BF007" {
			flagged[f.ArtifactURI[strings.LastIndex(f.ArtifactURI, "/")+1:]] = true
			if !strings.Contains(strings.Join(f.Evidence, "\n"), "watches ") {
				t.Errorf("BF007 does not show the watched expression: %+v", f)
			}
		}
	}
	if !flagged["BF9101ReplayLag"] || !flagged["bf_9101:rows:rate5m"] || flagged["BF9101ReplayStuck"] || len(flagged) != 2 {
		t.Errorf("BF007 flagged %v, want BF9101ReplayLag and bf_9101:rows:rate5m", flagged)
	}
}
