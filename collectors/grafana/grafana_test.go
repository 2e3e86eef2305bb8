package grafana

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// The fixture's dashboards and rules come out as a user reads them: the
// one made for BF-1234 tied and temporary, the live one reading its table
// untied with the read and its panel, the one reading nothing absent.
func TestCollectTiesAndReads(t *testing.T) {
	f := estate(t)
	g := newCollector(t, f.URL())
	sink := collect(t, g)
	if len(sink.Errors) > 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}

	mon := sink.Artifact("grafana://grafana/dashboards/bf1234-monitor")
	if mon == nil {
		t.Fatal("the backfill's dashboard is missing")
	}
	if mon.Kind != model.KindDashboard || mon.BackfillID != "BF-1234" || mon.Attr(model.AttrTemporary) != "true" {
		t.Errorf("monitor: kind %s, backfill %q, temporary %q", mon.Kind, mon.BackfillID, mon.Attr(model.AttrTemporary))
	}
	if mon.Scope != "analytics/bf1234-monitor" || mon.Attr(model.AttrProject) != "Analytics" || mon.Name != "BF-1234 replay monitor" {
		t.Errorf("monitor: scope %q, project %q, name %q", mon.Scope, mon.Attr(model.AttrProject), mon.Name)
	}
	if got, want := mon.Attr(model.AttrURL), f.URL()+"/d/bf1234-monitor/slug"; got != want {
		t.Errorf("url %q, want %q", got, want)
	}
	if got, want := mon.Attr(model.AttrAPIURL), f.URL(); got != want {
		t.Errorf("api_url %q, want %q", got, want)
	}
	if mon.ModifiedAt.IsZero() || mon.CreatedAt.IsZero() || mon.Attr(AttrVersion) != "3" || mon.Attr(AttrTags) != "backfill" {
		t.Errorf("monitor meta: %+v", mon)
	}

	live := sink.Artifact("grafana://grafana/dashboards/refunds-live")
	if live == nil {
		t.Fatal("the live dashboard reading the backfill's table is missing")
	}
	if live.BackfillID != "" || live.Attr(model.AttrTemporary) != "" {
		t.Errorf("a live dashboard is not machinery: backfill %q, temporary %q", live.BackfillID, live.Attr(model.AttrTemporary))
	}
	rs := live.Reads()
	if len(rs) != 1 || rs[0].Identifier != "analytics.bf_1234_refunds" || rs[0].BackfillID != "bf_1234" || rs[0].Where != `panel "Refunds by day"` {
		t.Errorf("reads = %+v", rs)
	}

	ops := sink.Artifact("grafana://grafana/dashboards/ops-home")
	if ops == nil || ops.Scope != "general/ops-home" || len(ops.Reads()) != 1 || ops.Reads()[0].Where != `panel "Replay lag"` {
		t.Errorf("a collapsed row's panel reading the job: %+v", ops)
	}
	if sink.Artifact("grafana://grafana/dashboards/ledger") != nil {
		t.Error("a dashboard reading nothing tied was emitted")
	}
	nested := sink.Artifact("grafana://grafana/dashboards/nested-tag")
	if nested == nil || nested.BackfillID != "bf-1234" || nested.Correlation != "label" || nested.Scope != "refunds-sub/nested-tag" {
		t.Errorf("a nested folder's dashboard tied by its tag: %+v", nested)
	}

	rule := sink.Artifact("grafana://grafana/alert-rules/rule-bf")
	if rule == nil || rule.Kind != model.KindAlert || rule.BackfillID != "bf-1234" || rule.Attr(model.AttrWatchesOnly) != "true" || rule.Scope != "analytics" {
		t.Errorf("the backfill's rule: %+v", rule)
	}
	ruleLive := sink.Artifact("grafana://grafana/alert-rules/rule-live")
	if ruleLive == nil || ruleLive.BackfillID != "" || len(ruleLive.Reads()) != 1 || ruleLive.Reads()[0].Where != `query "A"` {
		t.Errorf("the live rule reading the table: %+v", ruleLive)
	}
	if sink.Artifact("grafana://grafana/alert-rules/rule-other") != nil {
		t.Error("a rule reading nothing tied was emitted")
	}
}

// A dashboard that fails to read is an error at that dashboard; the rest
// of its folder is still reported.
func TestDashboardFailureIsItsUnit(t *testing.T) {
	f := estate(t)
	f.set("/api/dashboards/uid/refunds-live", status(http.StatusInternalServerError))
	sink := collectortest.CollectBroken(t, newCollector(t, f.URL()), "analytics/refunds-live", "HTTP 500")
	if sink.Artifact("grafana://grafana/dashboards/bf1234-monitor") == nil {
		t.Error("the folder's other dashboard was not reported")
	}
}

// Folders limits the folders read; tags still find a tagged dashboard
// elsewhere.
func TestFoldersAllowListAndTags(t *testing.T) {
	f := estate(t)
	f.addDashboard("finance", "Finance", "fin-bf", "Finance replay", []string{"backfill", "bf-1234"})
	g := newCollector(t, f.URL())
	g.Folders = []string{"general"}
	g.Tags = []string{"backfill"}
	sink := collect(t, g)
	if sink.Artifact("grafana://grafana/dashboards/refunds-live") != nil {
		t.Error("a folder outside the allow-list was read")
	}
	if a := sink.Artifact("grafana://grafana/dashboards/fin-bf"); a == nil || a.Scope != "finance/fin-bf" || a.BackfillID != "bf-1234" {
		t.Errorf("the tagged dashboard outside the allow-list: %+v", a)
	}
	if sink.Artifact("grafana://grafana/dashboards/ops-home") == nil {
		t.Error("the allowed folder was not read")
	}
}

// Listings page with limit and page until a short page, and max_pages
// stops a server that never ends.
func TestPagingAndMaxPages(t *testing.T) {
	f := newFakeGrafana(t)
	for i := range pageSize + 5 {
		f.addFolder("f"+itoa(i), "Folder "+itoa(i), "")
	}
	g := newCollector(t, f.URL())
	if _, _, err := g.listFolders(t.Context(), g.src); err != nil {
		t.Fatal(err)
	}
	var pages int
	for _, r := range f.rec.Requests() {
		if strings.HasPrefix(r, "GET /api/folders?") && !strings.Contains(r, "parentUid") {
			pages++
		}
	}
	if pages != 2 {
		t.Errorf("root folder pages read = %d, want 2", pages)
	}
	g.MaxPages = 1
	if err := g.Init(testEnv()); err != nil {
		t.Fatal(err)
	}
	if _, err := g.src.folders(t.Context(), ""); err == nil || !strings.Contains(err.Error(), "max_pages") {
		t.Errorf("err = %v, want the max_pages stop", err)
	}
}

// A failing root folder listing fails the source.
func TestFolderListingFailsTheSource(t *testing.T) {
	f := estate(t)
	f.set("/api/folders", status(http.StatusForbidden))
	if err := collectors.Collect(t.Context(), newCollector(t, f.URL()), nopSink{}); err == nil || !strings.Contains(err.Error(), "HTTP 403") {
		t.Errorf("Collect = %v, want the source failed", err)
	}
}

func TestSampleConfigDecodes(t *testing.T) {
	t.Setenv("BFAUDIT_GRAFANA_TOKEN", "x")
	collectortest.DecodeSample(t, "sample.yaml")
}

func TestBadTimeoutsRejected(t *testing.T) {
	t.Setenv("BFAUDIT_GRAFANA_TOKEN", "x")
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "grafana", "name": "g", "url": "http://grafana:3000", "token_env": "BFAUDIT_GRAFANA_TOKEN"})
}

func TestBadConfigNamesTheKey(t *testing.T) {
	for _, c := range []struct {
		entry map[string]any
		want  string
	}{
		{map[string]any{"type": "grafana", "name": "g"}, "url"},
		{map[string]any{"type": "grafana", "name": "g", "url": "http://g:3000", "concurrency": 99}, "concurrency"},
		{map[string]any{"type": "grafana", "name": "g", "url": "http://g:3000", "export_dir": "x"}, "export_dir"},
		{map[string]any{"type": "grafana", "name": "g", "url": "http://g:3000", "token_env": "BFAUDIT_UNSET_GRAFANA_TOKEN"}, "token_env"},
	} {
		if _, err := decode(c.entry); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want one naming %s", c.entry, err, c.want)
		}
	}
}

// export_dir reads the saved answers laid out by folder.
func TestExportDir(t *testing.T) {
	g := New()
	g.ExportDir = "testdata/export"
	if err := g.Init(testEnv()); err != nil {
		t.Fatal(err)
	}
	sink := collect(t, g)
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "finance/broken" {
		t.Errorf("errors = %+v, want only the malformed file's", sink.Errors)
	}
	if a := sink.Artifact("grafana://grafana/dashboards/bf1234-monitor"); a == nil || a.BackfillID != "BF-1234" || a.Attr(model.AttrAPIURL) != "" {
		t.Errorf("export dashboard: %+v", a)
	}
	if a := sink.Artifact("grafana://grafana/dashboards/refunds-live"); a == nil || len(a.Reads()) != 1 {
		t.Errorf("export live dashboard: %+v", a)
	}
	if a := sink.Artifact("grafana://grafana/alert-rules/rule-bf"); a == nil || a.Attr(model.AttrWatchesOnly) != "true" {
		t.Errorf("export rule: %+v", a)
	}
}

// A folder named in folders that the listing does not hold is an error at
// its own unit, not a folder silently left unread; the others are read.
func TestUnknownFolderIsAnError(t *testing.T) {
	f := estate(t)
	g := newCollector(t, f.URL())
	g.Folders = []string{"general", "nope"}
	units, err := g.Units(t.Context())
	if err != nil || strings.Join(units, " ") != "general nope" {
		t.Fatalf("units %q (%v), want general and nope", units, err)
	}
	sink := collectortest.CollectBroken(t, g, "nope", "not in the folder listing")
	if sink.Artifact("grafana://grafana/dashboards/ops-home") == nil {
		t.Error("the listed folder was not read")
	}
}
