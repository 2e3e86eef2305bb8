package grafana

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// exportCollector reads dir as export_dir.
func exportCollector(t *testing.T, dir string) *Grafana {
	t.Helper()
	g := New()
	g.ExportDir = dir
	if err := g.Init(testEnv()); err != nil {
		t.Fatal(err)
	}
	return g
}

func collectAll(t *testing.T, g *Grafana) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(t.Context(), g, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return sink
}

func errorScopes(sink *collectors.TestSink) []string {
	var out []string
	for _, e := range sink.Errors {
		out = append(out, e.Scope)
	}
	sort.Strings(out)
	return out
}

// A folder of dashboard files in every shape people keep them in (models
// exported from the UI, a saved API answer, v2 resources and a bare v2
// spec, a ConfigMapList, grafana-operator resources, nested directories)
// is read: each dashboard under its model's uid, a file that holds no
// dashboard skipped with a note, a model that cannot be read an error at
// its file and only there.
func TestExportDirReadsEveryShape(t *testing.T) {
	g := exportCollector(t, "testdata/files")
	sink := collectAll(t, g)

	if got, want := strings.Join(errorScopes(sink), " "), "broken/bad-json.json broken/bad-model.json broken/bad-v2.yaml"; got != want {
		t.Errorf("error scopes = %q, want %q; errors: %+v", got, want, sink.Errors)
	}
	if n, p := sink.Read("", "dashboards"); n != 10 || p != 2 {
		t.Errorf("dashboards read = %d (%d in part), want 10 (2 in part); reads %+v", n, p, sink.Reads)
	}
	for _, c := range []struct {
		scope   string
		n, part int
	}{
		{"k8s/operator.yaml", 3, 0}, {"k8s/configmaps.yaml", 1, 0}, {"v2/monitor.json", 1, 1},
		{"exported/library.json", 1, 1}, {"api/answer.json", 1, 0},
	} {
		if n, p := sink.Read(c.scope, "dashboards"); n != c.n || p != c.part {
			t.Errorf("%s: read %d (%d in part), want %d (%d)", c.scope, n, p, c.n, c.part)
		}
	}

	want := map[string]struct{ scope, read, backfill string }{
		"refunds-live":   {"exported/refunds-export-2026.json", "analytics.bf_1234_refunds", ""},
		"ledger-live":    {"api/answer.json", "bf_1234_replay", ""},
		"bf1234-v2":      {"v2/monitor.json", "dbo.bf_1234_x", "BF-1234"},
		"spec-only":      {"v2/spec-only.json", "proj.analytics.bf_1234_refunds", ""},
		"cm-board":       {"k8s/configmaps.yaml", "bf_1234_replay", ""},
		"gz-board":       {"k8s/operator.yaml", "analytics.bf_1234_refunds", ""},
		"manifest-board": {"k8s/operator.yaml", "bf_1234_replay", ""},
		"from-configmap": {"k8s/operator.yaml", "", "BF-1234"},
		"lib-board":      {"exported/library.json", "", "bf-1234"},
	}
	for uid, w := range want {
		a := sink.Artifact("grafana://grafana/dashboards/" + uid)
		if a == nil {
			t.Errorf("%s: no artifact", uid)
			continue
		}
		if a.Scope != w.scope || a.BackfillID != w.backfill {
			t.Errorf("%s: scope %q backfill %q, want %q %q", uid, a.Scope, a.BackfillID, w.scope, w.backfill)
		}
		if w.read != "" && (len(a.Reads()) == 0 || a.Reads()[0].Identifier != w.read) {
			t.Errorf("%s: reads %+v, want %s", uid, a.Reads(), w.read)
		}
	}
	if len(sink.Artifacts) != len(want) {
		t.Errorf("%d artifacts, want %d: %v", len(sink.Artifacts), len(want), uris(sink))
	}
	if a := sink.Artifact("grafana://grafana/dashboards/cm-board"); a == nil || a.Attr(model.AttrProject) != "Replays" {
		t.Errorf("the ConfigMap's grafana_folder is the dashboard's project: %+v", a)
	}
	if a := sink.Artifact("grafana://grafana/dashboards/ledger-live"); a == nil || a.Attr(model.AttrProject) != "Finance" || a.Attr(AttrVersion) != "7" {
		t.Errorf("a saved answer keeps its meta: %+v", a)
	}
	notes := strings.Join(g.Notes(), "\n")
	for _, w := range []string{"skipped 2 file(s) that hold no dashboard", "k8s/kustomization.yaml (kind Kustomization",
		"provisioning/dashboards.yaml", "GrafanaDashboard from-url (spec.url)", "refunds-live (exported/refunds-export-2026.json, again in old-copies/again.json)"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if strings.Contains(notes, "notes.txt") {
		t.Errorf("a file that is not a dashboard file was considered: %s", notes)
	}
}

func uris(sink *collectors.TestSink) []string {
	var out []string
	for _, a := range sink.Artifacts {
		out = append(out, a.URI)
	}
	sort.Strings(out)
	return out
}

// The uid is the model's, not the file's name: a UI export saved as
// "refunds-export-2026.json" is dashboard refunds-live, in a folder of
// files and among saved answers alike.
func TestUIDFromTheModel(t *testing.T) {
	sink := collectAll(t, exportCollector(t, "testdata/files"))
	if sink.Artifact("grafana://grafana/dashboards/refunds-live") == nil || sink.Artifact("grafana://grafana/dashboards/refunds-export-2026") != nil {
		t.Errorf("files: artifacts %v, want refunds-live", uris(sink))
	}
	sink = collectAll(t, exportCollector(t, "testdata/export"))
	a := sink.Artifact("grafana://grafana/dashboards/ops-board")
	if a == nil || a.Scope != "analytics/ops-board-backup" || a.BackfillID != "bf-1234" {
		t.Errorf("saved answers: ops-board = %+v; artifacts %v; errors %+v", a, uris(sink), sink.Errors)
	}
	if sink.Artifact("grafana://grafana/dashboards/ops-board-backup") != nil {
		t.Error("the file name was taken for the uid")
	}
}

// A file that is not a dashboard (kustomization.yaml, a provisioning
// provider) in the folder is skipped with a note, not an error, and the
// run stays complete.
func TestNonDashboardFilesAreSkippedWithANote(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "dashboards/k8s-views.json", `{"title":"Views","uid":"k8s_views","schemaVersion":39,"panels":[]}`)
	writeFile(t, dir, "kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n")
	writeFile(t, dir, "provider.yml", "apiVersion: 1\nproviders:\n- name: x\n  type: file\n")
	g := exportCollector(t, dir)
	sink := collectAll(t, g)
	if len(sink.Errors) != 0 {
		t.Errorf("errors: %+v", sink.Errors)
	}
	if n, _ := sink.Read("dashboards/k8s-views.json", "dashboards"); n != 1 {
		t.Errorf("the dashboard was not read: %+v", sink.Reads)
	}
	if notes := strings.Join(g.Notes(), "\n"); !strings.Contains(notes, "kustomization.yaml") || !strings.Contains(notes, "provider.yml") {
		t.Errorf("notes = %q", notes)
	}
}

// A dashboard stored in the v2 schema is read from the API: Grafana's
// classic path refuses it (406, naming the /apis path), and the
// dashboard.grafana.app resource it names holds the panels. A classic
// answer that carries a v2 resource is read as v2 too. Neither is an
// empty dashboard.
func TestV2FromTheAPI(t *testing.T) {
	f := newFakeGrafana(t)
	f.addFolder("analytics", "Analytics", "")
	f.addV2Dashboard("analytics", "Analytics", "refunds-v2", "Refunds", []string{"finance"}, map[string]any{
		"panel-1": v2Panel("Refunds by day", map[string]any{"rawSql": `SELECT day, sum(amount) FROM "analytics"."bf_1234_refunds" GROUP BY day`}),
	})
	f.addDashboard("analytics", "Analytics", "carried-v2", "Carried", nil)
	f.mu.Lock()
	f.dashboards["carried-v2"]["dashboard"] = v2Resource("carried-v2", "analytics", "BF-1234 replay monitor", nil, map[string]any{
		"panel-1": v2Panel("Lag", map[string]any{"expr": `lag{job="bf_1234_replay"}`}),
	})
	f.mu.Unlock()
	sink := collect(t, newCollector(t, f.URL()))
	if len(sink.Errors) > 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	a := sink.Artifact("grafana://grafana/dashboards/refunds-v2")
	if a == nil || a.Scope != "analytics/refunds-v2" || len(a.Reads()) != 1 || a.Reads()[0].Identifier != "analytics.bf_1234_refunds" {
		t.Fatalf("the v2 dashboard: %+v", a)
	}
	if a.Attr(AttrVersion) != "4" || a.ModifiedAt.IsZero() || a.Attr(model.AttrURL) != f.URL()+"/d/refunds-v2" {
		t.Errorf("the v2 dashboard's meta: %+v", a)
	}
	if c := sink.Artifact("grafana://grafana/dashboards/carried-v2"); c == nil || c.BackfillID != "BF-1234" || len(c.Reads()) != 1 {
		t.Errorf("a classic answer carrying a v2 resource: %+v", c)
	}
	var v2reqs int
	for _, r := range f.apis.Requests() {
		if r == "GET /apis/dashboard.grafana.app/v2beta1/namespaces/default/dashboards/refunds-v2" {
			v2reqs++
		}
	}
	if v2reqs != 1 {
		t.Errorf("requests under /apis: %v", f.apis.Requests())
	}
	if n, _ := sink.Read("", "dashboards"); n != 2 {
		t.Errorf("dashboards read = %d, want 2", n)
	}
}

// A 406 that names no /apis path is an error at the dashboard, never an
// empty answer.
func TestV2RefusalWithoutAPathIsAnError(t *testing.T) {
	f := estate(t)
	f.set("/api/dashboards/uid/refunds-live", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotAcceptable)
		_, _ = w.Write([]byte(`{"message":"dashboard api version not supported"}`))
	}))
	sink := collect(t, newCollector(t, f.URL()))
	if got := strings.Join(errorScopes(sink), " "); got != "analytics/refunds-live" {
		t.Errorf("error scopes %q, want analytics/refunds-live: %+v", got, sink.Errors)
	}
}

// A model that cannot be read is an error at its unit, never an empty
// ok: from the API (an answer carrying a v2 spec whose elements are not
// an object, a classic model whose panels are not a list) and from files.
func TestUnreadableModelIsAnError(t *testing.T) {
	f := newFakeGrafana(t)
	f.addFolder("analytics", "Analytics", "")
	f.addDashboard("analytics", "Analytics", "bad-v2", "Bad", nil)
	f.addDashboard("analytics", "Analytics", "bad-panels", "Bad panels", nil)
	f.addDashboard("analytics", "Analytics", "fine", "Fine", nil)
	f.mu.Lock()
	bad := v2Resource("bad-v2", "analytics", "Bad", nil, nil)
	bad["spec"].(map[string]any)["elements"] = "not an object"
	f.dashboards["bad-v2"]["dashboard"] = bad
	f.dashboards["bad-panels"]["dashboard"].(map[string]any)["panels"] = "not a list"
	f.mu.Unlock()
	sink := collect(t, newCollector(t, f.URL()))
	if got := strings.Join(errorScopes(sink), " "); got != "analytics/bad-panels analytics/bad-v2" {
		t.Errorf("error scopes %q, want the two unreadable dashboards: %+v", got, sink.Errors)
	}
	if n, _ := sink.Read("analytics/fine", "dashboards"); n != 1 {
		t.Errorf("the readable dashboard was not read: %+v", sink.Reads)
	}
	if n, _ := sink.Read("analytics/bad-v2", "dashboards"); n != 0 {
		t.Errorf("an unreadable dashboard counted as read")
	}
}

// Every unit says what it read: one dashboard per dashboard unit (in part
// when a panel's queries are not readable), the alert rules per folder.
func TestReadsAreCounted(t *testing.T) {
	f := estate(t)
	f.addDashboard("finance", "Finance", "odd-panel", "Odd", nil, map[string]any{"type": "table", "title": "x", "targets": "not a list"},
		panel("Fine", map[string]any{"refId": "A", "rawSql": "SELECT 1"}))
	f.addRule("rule-odd", "Odd rule", "finance", nil, nil)
	sink := collect(t, newCollector(t, f.URL()))
	if n, p := sink.Read("", "dashboards"); n != 6 || p != 1 {
		t.Errorf("dashboards read %d (%d in part), want 6 (1)", n, p)
	}
	if n, p := sink.Read("finance/odd-panel", "dashboards"); n != 1 || p != 1 {
		t.Errorf("odd-panel read %d (%d in part), want 1 (1)", n, p)
	}
	if n, p := sink.Read("analytics/refunds-live", "dashboards"); n != 1 || p != 0 {
		t.Errorf("refunds-live read %d (%d in part)", n, p)
	}
	if n, p := sink.Read("finance", "alert rules"); n != 3 || p != 1 {
		t.Errorf("finance alert rules read %d (%d in part), want 3 (1)", n, p)
	}
	if n, _ := sink.Read("analytics", "alert rules"); n != 1 {
		t.Errorf("analytics alert rules read %d, want 1", n)
	}
}

// Each error names its file, or its address, once.
func TestErrorsNameTheirPathOnce(t *testing.T) {
	f := estate(t)
	f.set("/api/dashboards/uid/refunds-live", status(http.StatusInternalServerError))
	f.set("/api/search", failSearchOf(f, "finance", status(http.StatusBadGateway)))
	sink := collect(t, newCollector(t, f.URL()))
	for _, want := range []string{"/api/dashboards/uid/refunds-live", "/api/search"} {
		found := false
		for _, e := range sink.Errors {
			if n := strings.Count(e.Error, want); n > 0 {
				found = true
				if n != 1 {
					t.Errorf("%q names %s %d times", e.Error, want, n)
				}
			}
		}
		if !found {
			t.Errorf("no error names %s: %+v", want, sink.Errors)
		}
	}

	for _, c := range []struct{ dir, file string }{
		{"testdata/files", "broken/bad-json.json"},
		{"testdata/export", "broken.json"},
	} {
		sink := collectAll(t, exportCollector(t, c.dir))
		found := false
		for _, e := range sink.Errors {
			if strings.Contains(e.Error, c.file) {
				found = true
				if n := strings.Count(e.Error, c.file); n != 1 {
					t.Errorf("%s: %q names %s %d times", c.dir, e.Error, c.file, n)
				}
			}
		}
		if !found {
			t.Errorf("%s: no error names %s: %+v", c.dir, c.file, sink.Errors)
		}
	}
}

// Quoted SQL identifiers keep their schema and project: the table a
// panel reads is the qualified name, unquoted.
func TestQuotedIdentifiersKeepSchema(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`SELECT * FROM "analytics"."bf_7003_refunds" WHERE x > 1`, "analytics.bf_7003_refunds"},
		{"SELECT * FROM `proj`.`analytics`.`bf_7003_refunds`", "proj.analytics.bf_7003_refunds"},
		{"SELECT * FROM `proj.analytics.bf_7003_refunds`", "proj.analytics.bf_7003_refunds"},
		{`SELECT * FROM [dbo].[bf_7003_refunds]`, "dbo.bf_7003_refunds"},
		{`SELECT * FROM analytics."bf_7003_refunds"`, "analytics.bf_7003_refunds"},
		{`SELECT * FROM "analytics".bf_7003_refunds`, "analytics.bf_7003_refunds"},
		{`SELECT * FROM analytics.bf_7003_refunds`, "analytics.bf_7003_refunds"},
	} {
		rs := reads(testSelector(), []query{{where: "q", text: c.text}})
		if len(rs) != 1 || rs[0].Identifier != c.want {
			t.Errorf("%s: reads %+v, want one of %s", c.text, rs, c.want)
		}
	}
	// A quoted column or label value is still its own identifier.
	ids := identifiers(`SELECT "amount" FROM "analytics"."t" WHERE job = "bf_1_replay"`)
	if strings.Join(ids, " ") != "analytics.t amount bf_1_replay SELECT FROM WHERE job" {
		t.Errorf("identifiers = %q", ids)
	}
}

// decodeDocs reads each shape as its tools write it; the uid, title and
// query count of every board, or the error.
func TestDecodeShapes(t *testing.T) {
	for _, c := range []struct {
		name, file, text string
		want             string // "uid title queries; ..."
	}{
		{"a map of dashboards (a mixin's grafanaDashboards)", "m.json",
			`{"a.json": {"uid": "a", "title": "A", "panels": [{"targets": [{"expr": "up"}]}]}, "b.json": {"title": "B", "schemaVersion": 39}}`,
			"a A 1; b B 0"},
		{"Grizzly's map of enveloped resources", "g.yaml",
			"app_1:\n  dashboard:\n    apiVersion: grizzly.grafana.com/v1alpha1\n    kind: Dashboard\n    metadata: {name: app-1}\n    spec: {title: App, panels: []}\n",
			"app-1 App 0"},
		{"a resource whose spec is a JSON string", "s.yml",
			"apiVersion: grizzly.grafana.com/v1alpha1\nkind: Dashboard\nmetadata:\n  name: spec-as-string\nspec: |\n  {\"title\": \"Spec as String\", \"uid\": \"spec-as-string\"}\n",
			"spec-as-string Spec as String 0"},
		{"a JSON array", "a.json", `[{"uid": "x", "title": "X", "panels": []}, {"uid": "y", "title": "Y", "rows": [{"panels": [{"targets": [{"rawSql": "SELECT 1"}]}]}]}]`,
			"x X 0; y Y 1"},
		{"YAML documents", "d.yaml", "---\nuid: p\ntitle: P\npanels: []\n---\n# only a comment\n---\nuid: q\ntitle: Q\nschemaVersion: 17\n",
			"p P 0; q Q 0"},
		{"a v1 resource (classic spec)", "v1.json",
			`{"apiVersion": "dashboard.grafana.app/v1beta1", "kind": "Dashboard", "metadata": {"name": "v1-uid"}, "spec": {"title": "V1", "panels": [{"targets": [{"expr": "up"}]}]}}`,
			"v1-uid V1 1"},
		{"a v2alpha1 resource", "v2a.json",
			`{"apiVersion": "dashboard.grafana.app/v2alpha1", "kind": "Dashboard", "metadata": {"name": "v2a"}, "spec": {"title": "V2a", "elements": {"p": {"kind": "Panel", "spec": {"title": "P", "data": {"kind": "QueryGroup", "spec": {"queries": [{"kind": "PanelQuery", "spec": {"refId": "A", "query": {"kind": "prometheus", "spec": {"expr": "up"}}}}]}}}}}}}`,
			"v2a V2a 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := decodeDocs(c.file, []byte(c.text))
			if err != nil || d.err() != nil {
				t.Fatalf("err %v, %v", err, d.err())
			}
			var got []string
			for _, b := range d.boards {
				got = append(got, b.UID+" "+b.Title+" "+itoa(len(b.Queries)))
			}
			if strings.Join(got, "; ") != c.want {
				t.Errorf("boards %q, want %q (skipped %v)", strings.Join(got, "; "), c.want, d.skipped)
			}
		})
	}
}
