package grafana

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	"github.com/bfaudit/bfaudit/testkit/swagger"
)

// specPath is the extract of Grafana's own API description (testdata/README.md).
const specPath = "testdata/grafana-api-extract.json"

// apisSpecPath is the extract of Grafana's OpenAPI 3 description of the
// dashboard.grafana.app API, where dashboards stored in the v2 schema are
// read (testdata/README.md).
const apisSpecPath = "testdata/grafana-apis-dashboard-v2beta1-extract.json"

const fakeToken = "glsa_fake_token"

func loadSpec(t testing.TB, path string) *swagger.Spec {
	t.Helper()
	s, err := swagger.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeGrafana answers the five operations the collector and the fix
// system use, in the shapes of the description's definitions
// (FolderSearchHit, Hit, DashboardFullWithMeta, ProvisionedAlertRule), and
// checks every request against the description: a request it does not
// allow fails the test that made it.
type fakeGrafana struct {
	t   testing.TB
	srv *httptest.Server
	rec *swagger.Recorder
	// apis checks the requests under /apis (v2 dashboards).
	apis *swagger.Recorder

	mu         sync.Mutex
	folders    []map[string]any          // FolderSearchHit
	dashboards map[string]map[string]any // uid -> DashboardFullWithMeta
	v2         map[string]map[string]any // uid -> the v2 resource of a dashboard stored in schema v2
	rules      []map[string]any          // ProvisionedAlertRule
	override   map[string]http.Handler   // by path
}

func newFakeGrafana(t testing.TB) *fakeGrafana {
	f := &fakeGrafana{
		t:          t,
		dashboards: map[string]map[string]any{},
		v2:         map[string]map[string]any{},
		override:   map[string]http.Handler{},
		rec:        &swagger.Recorder{Spec: loadSpec(t, specPath)},
		apis:       &swagger.Recorder{Spec: loadSpec(t, apisSpecPath)},
	}
	api, apis := f.rec.Wrap(f), f.apis.Wrap(f)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/apis/") {
			apis.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		f.srv.Close()
		for _, v := range append(f.rec.Violations(), f.apis.Violations()...) {
			t.Errorf("contract: %s", v)
		}
	})
	return f
}

func (f *fakeGrafana) URL() string { return f.srv.URL }

// set makes path answer with h (a fault), for every method.
func (f *fakeGrafana) set(path string, h http.Handler) {
	f.mu.Lock()
	f.override[path] = h
	f.mu.Unlock()
}

func status(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"message":"fake failure"}`))
	})
}

func (f *fakeGrafana) addFolder(uid, title, parent string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[string]any{"id": len(f.folders) + 1, "uid": uid, "title": title}
	if parent != "" {
		m["parentUid"] = parent
	}
	f.folders = append(f.folders, m)
}

// panel is a panel of the dashboard model with its targets.
func panel(title string, targets ...map[string]any) map[string]any {
	ts := make([]any, len(targets))
	for i, t := range targets {
		ts[i] = t
	}
	return map[string]any{"type": "table", "title": title, "targets": ts}
}

func (f *fakeGrafana) addDashboard(folderUID, folderTitle, uid, title string, tags []string, panels ...map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ps := make([]any, len(panels))
	for i, p := range panels {
		ps[i] = p
	}
	if tags == nil {
		tags = []string{}
	}
	f.dashboards[uid] = map[string]any{
		"dashboard": map[string]any{"uid": uid, "title": title, "tags": tags, "panels": ps, "schemaVersion": 39},
		"meta": map[string]any{"slug": strings.ToLower(strings.ReplaceAll(title, " ", "-")), "url": "/d/" + uid + "/slug",
			"created": "2026-01-05T10:00:00Z", "updated": "2026-01-06T10:00:00Z", "version": 3,
			"folderUid": folderUID, "folderTitle": folderTitle, "canDelete": true, "provisioned": false},
	}
}

// v2Panel is an element of a v2 dashboard: a Panel with one query.
func v2Panel(title string, query map[string]any) map[string]any {
	return map[string]any{"kind": "Panel", "spec": map[string]any{"id": 1, "title": title, "links": []any{},
		"data": map[string]any{"kind": "QueryGroup", "spec": map[string]any{"queries": []any{
			map[string]any{"kind": "PanelQuery", "spec": map[string]any{"refId": "A", "hidden": false,
				"query": map[string]any{"kind": "DataQuery", "group": "grafana-postgresql-datasource", "version": "v0",
					"datasource": map[string]any{"name": "pg"}, "spec": query}}}},
			"transformations": []any{}, "queryOptions": map[string]any{}}},
		"vizConfig": map[string]any{"kind": "VizConfig", "group": "table", "version": "12.1.0", "spec": map[string]any{}}}}
}

// v2Resource is a dashboard as the dashboard.grafana.app API answers it
// in schema v2beta1.
func v2Resource(uid, folderUID, title string, tags []string, elements map[string]any) map[string]any {
	return map[string]any{"apiVersion": "dashboard.grafana.app/v2beta1", "kind": "Dashboard",
		"metadata": map[string]any{"name": uid, "namespace": "default", "uid": "5f1d6b1e-0c2a-4c57-9d38-2b1e8a9c0f11",
			"resourceVersion": "1784640466948981", "generation": 4, "creationTimestamp": "2026-02-01T09:00:00Z",
			"annotations": map[string]any{"grafana.app/folder": folderUID, "grafana.app/updatedTimestamp": "2026-02-03T09:00:00Z"}},
		"spec": map[string]any{"title": title, "tags": tags, "elements": elements, "editable": true, "cursorSync": "Off",
			"layout":       map[string]any{"kind": "GridLayout", "spec": map[string]any{"items": []any{}}},
			"timeSettings": map[string]any{"from": "now-6h", "to": "now"}, "variables": []any{}, "links": []any{}}}
}

// addV2Dashboard adds a dashboard stored in the v2 schema: search lists
// it, the classic API refuses it with 406 naming the /apis path, and that
// path answers the resource.
func (f *fakeGrafana) addV2Dashboard(folderUID, folderTitle, uid, title string, tags []string, elements map[string]any) {
	f.addDashboard(folderUID, folderTitle, uid, title, tags)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.v2[uid] = v2Resource(uid, folderUID, title, tags, elements)
}

func (f *fakeGrafana) addRule(uid, title, folderUID string, labels map[string]string, model map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if labels == nil {
		labels = map[string]string{}
	}
	f.rules = append(f.rules, map[string]any{
		"uid": uid, "orgID": 1, "folderUID": folderUID, "ruleGroup": "eval_group_1", "title": title,
		"condition": "A", "noDataState": "OK", "execErrState": "Error", "for": "5m", "isPaused": false,
		"labels": labels, "annotations": map[string]string{}, "updated": "2026-01-05T00:00:00Z",
		"data": []any{map[string]any{"refId": "A", "datasourceUid": "bq-1", "queryType": "",
			"relativeTimeRange": map[string]any{"from": 600, "to": 0}, "model": model}},
	})
}

func (f *fakeGrafana) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	h := f.override[r.URL.Path]
	f.mu.Unlock()
	if h != nil {
		h.ServeHTTP(w, r)
		return
	}
	f.serve(w, r)
}

// serve answers as Grafana does, faults aside.
func (f *fakeGrafana) serve(w http.ResponseWriter, r *http.Request) {
	if auth := r.Header.Get("Authorization"); auth != "Bearer "+fakeToken && auth != "Bearer "+hostile.Canary {
		status(http.StatusUnauthorized).ServeHTTP(w, r)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	q := r.URL.Query()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/folders":
		var out []map[string]any
		for _, fo := range f.folders {
			parent, _ := fo["parentUid"].(string)
			if parent == q.Get("parentUid") {
				out = append(out, fo)
			}
		}
		writePage(w, q, out)
	case r.Method == http.MethodGet && r.URL.Path == "/api/search":
		var out []map[string]any
		uids := make([]string, 0, len(f.dashboards))
		for uid := range f.dashboards {
			uids = append(uids, uid)
		}
		sort.Strings(uids)
		for _, uid := range uids {
			d := f.dashboards[uid]
			meta, model := d["meta"].(map[string]any), d["dashboard"].(map[string]any)
			tags, _ := model["tags"].([]string)
			if q.Has("folderUIDs") && q.Get("folderUIDs") != meta["folderUid"] && !(q.Get("folderUIDs") == "" && meta["folderUid"] == "") {
				continue
			}
			if q.Has("tag") && !contains(tags, q.Get("tag")) {
				continue
			}
			out = append(out, map[string]any{"id": len(out) + 1, "uid": uid, "title": model["title"], "uri": "db/" + uid,
				"url": meta["url"], "slug": meta["slug"], "type": "dash-db", "tags": tags, "isStarred": false,
				"folderUid": meta["folderUid"], "folderTitle": meta["folderTitle"]})
		}
		writePage(w, q, out)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/apis/dashboard.grafana.app/v2beta1/namespaces/default/dashboards/"):
		uid := strings.TrimPrefix(r.URL.Path, "/apis/dashboard.grafana.app/v2beta1/namespaces/default/dashboards/")
		res, ok := f.v2[uid]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
				"message": `dashboards.dashboard.grafana.app "` + uid + `" not found`, "reason": "NotFound", "code": 404})
			return
		}
		_ = json.NewEncoder(w).Encode(res)
	case r.Method == http.MethodGet && f.v2[strings.TrimPrefix(r.URL.Path, "/api/dashboards/uid/")] != nil:
		// Grafana 12's answer for a dashboard stored in schema v2.
		uid := strings.TrimPrefix(r.URL.Path, "/api/dashboards/uid/")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotAcceptable)
		_ = json.NewEncoder(w).Encode(map[string]any{"message": "dashboard api version not supported, use /apis/dashboard.grafana.app/v2beta1/namespaces/default/dashboards/" + uid + " instead"})
	case strings.HasPrefix(r.URL.Path, "/api/dashboards/uid/"):
		uid := strings.TrimPrefix(r.URL.Path, "/api/dashboards/uid/")
		d, ok := f.dashboards[uid]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"Dashboard not found"}`))
			return
		}
		if r.Method == http.MethodDelete {
			delete(f.dashboards, uid)
			_ = json.NewEncoder(w).Encode(map[string]any{"title": d["dashboard"].(map[string]any)["title"], "message": "Dashboard deleted", "uid": uid})
			return
		}
		_ = json.NewEncoder(w).Encode(d)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/provisioning/alert-rules":
		out := f.rules
		if out == nil {
			out = []map[string]any{}
		}
		_ = json.NewEncoder(w).Encode(out)
	case strings.HasPrefix(r.URL.Path, "/api/v1/provisioning/alert-rules/"):
		uid := strings.TrimPrefix(r.URL.Path, "/api/v1/provisioning/alert-rules/")
		for i, rule := range f.rules {
			if rule["uid"] != uid {
				continue
			}
			if r.Method == http.MethodDelete {
				f.rules = append(f.rules[:i], f.rules[i+1:]...)
				w.WriteHeader(http.StatusNoContent)
				return
			}
			_ = json.NewEncoder(w).Encode(rule)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// writePage answers one page of limit items (page numbering starts at 1).
func writePage(w http.ResponseWriter, q url.Values, all []map[string]any) {
	limit, _ := strconv.Atoi(q.Get("limit"))
	page, _ := strconv.Atoi(q.Get("page"))
	if limit <= 0 {
		limit = 1000
	}
	if page <= 0 {
		page = 1
	}
	start := (page - 1) * limit
	out := []map[string]any{}
	if start < len(all) {
		out = all[start:min(len(all), start+limit)]
	}
	_ = json.NewEncoder(w).Encode(out)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// estate is the fixture: folder analytics holds a dashboard made for
// BF-1234 and a live one reading its table; folder finance a dashboard
// reading nothing tied; the top level a dashboard whose collapsed row
// reads the backfill's job; an alert rule made for BF-1234 and one
// reading its table.
func estate(t testing.TB) *fakeGrafana {
	f := newFakeGrafana(t)
	f.addFolder("analytics", "Analytics", "")
	f.addFolder("finance", "Finance", "")
	f.addFolder("refunds-sub", "Refunds (nested)", "analytics")
	f.addDashboard("analytics", "Analytics", "bf1234-monitor", "BF-1234 replay monitor", []string{"backfill"},
		panel("Rows written", map[string]any{"refId": "A", "rawSql": "SELECT count(*) FROM `proj.analytics.bf_1234_refunds`"}))
	f.addDashboard("analytics", "Analytics", "refunds-live", "Refunds", []string{"finance"},
		panel("Refunds by day", map[string]any{"refId": "A", "rawSql": "SELECT day, sum(amount) FROM analytics.bf_1234_refunds GROUP BY day"}),
		panel("Orders", map[string]any{"refId": "A", "rawSql": "SELECT * FROM analytics.orders"}))
	f.addDashboard("finance", "Finance", "ledger", "Ledger", nil,
		panel("Ledger", map[string]any{"refId": "A", "rawSql": "SELECT * FROM finance.ledger"}))
	f.addDashboard("", "", "ops-home", "Ops home", nil, map[string]any{"type": "row", "title": "Replays", "collapsed": true,
		"panels": []any{panel("Replay lag", map[string]any{"refId": "A", "expr": `max(lag_seconds{job="bf_1234_replay"})`})}})
	f.addDashboard("refunds-sub", "Refunds (nested)", "nested-tag", "Nested", []string{"backfill_id:bf-1234"})
	f.addRule("rule-bf", "BF-1234 replay lag", "analytics", map[string]string{"backfill_id": "bf-1234"},
		map[string]any{"refId": "A", "expr": `lag_seconds{job="bf_1234_replay"} > 600`})
	f.addRule("rule-live", "Refund volume", "finance", map[string]string{"team": "finance"},
		map[string]any{"refId": "A", "rawSql": "SELECT count(*) FROM analytics.bf_1234_refunds"})
	f.addRule("rule-other", "Ledger lag", "finance", nil, map[string]any{"refId": "A", "expr": "ledger_lag > 5"})
	return f
}

func newCollector(t testing.TB, url string) *Grafana {
	t.Helper()
	t.Setenv("TEST_GRAFANA_TOKEN", fakeToken)
	g := New()
	g.URL, g.TokenEnv = url, "TEST_GRAFANA_TOKEN"
	g.Retry = remote.RetryPolicy{Attempts: 1}
	if err := g.Init(testEnv()); err != nil {
		t.Fatal(err)
	}
	return g
}

func collect(t *testing.T, g *Grafana) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(t.Context(), g, sink); err != nil {
		t.Fatal(err)
	}
	return sink
}
