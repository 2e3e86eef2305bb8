package grafana

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// Every request a full collection sends is allowed by Grafana's own API
// description (the fake checks each one; see fakeGrafana), and the
// collection does send each operation the description is kept for.
func TestContractCollectorRequests(t *testing.T) {
	f := estate(t)
	g := newCollector(t, f.URL())
	g.Folders = []string{"analytics"}
	g.Tags = []string{"backfill"}
	collect(t, g)
	g.Folders, g.Tags = nil, nil
	collect(t, g)
	reqs := strings.Join(f.rec.Requests(), "\n")
	for _, want := range []string{
		"GET /api/folders?limit=1000&page=1",
		"GET /api/folders?limit=1000&page=1&parentUid=analytics",
		"GET /api/search?folderUIDs=analytics&limit=1000&page=1&type=dash-db",
		"GET /api/search?folderUIDs=&limit=1000&page=1&type=dash-db",
		"GET /api/search?limit=1000&page=1&tag=backfill&type=dash-db",
		"GET /api/dashboards/uid/refunds-live",
		"GET /api/v1/provisioning/alert-rules",
	} {
		if !strings.Contains(reqs, want+"\n") && !strings.HasSuffix(reqs, want) {
			t.Errorf("no request %q among:\n%s", want, reqs)
		}
	}
	if v := f.rec.Violations(); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}
}

// The validator is not a rubber stamp: requests altered from the ones the
// collector sends are each refused, naming what is wrong.
func TestContractRefusesAlteredRequests(t *testing.T) {
	spec := loadSpec(t, specPath)
	ok := func(method, path, query string, body string) []string {
		q, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		return spec.Check(method, path, q, []byte(body))
	}
	if v := ok("GET", "/api/search", "type=dash-db&folderUIDs=analytics&limit=1000&page=2", ""); len(v) > 0 {
		t.Fatalf("the collector's own request is refused: %v", v)
	}
	for _, c := range []struct {
		name, method, path, query, body, want string
	}{
		{"unknown parameter", "GET", "/api/search", "type=dash-db&folderUid=analytics", "", `"folderUid" is not declared`},
		{"tags for tag", "GET", "/api/search", "type=dash-db&tags=backfill", "", `"tags" is not declared`},
		{"page not an integer", "GET", "/api/folders", "limit=1000&page=two", "", "invalid integer"},
		{"type outside its enum", "GET", "/api/search", "type=dashboard", "", "is not one of"},
		{"csv parameter repeated", "GET", "/api/search", "folderUIDs=a&folderUIDs=b", "", "not multi"},
		{"wrong path", "GET", "/api/dashboards/by-uid/x", "", "", "no path"},
		{"no base path", "GET", "/folders", "", "", "no path"},
		{"method not allowed", "DELETE", "/api/folders", "", "", "does not allow DELETE"},
		{"body on a delete", "DELETE", "/api/dashboards/uid/x", "", `{"force":true}`, "takes none"},
		{"rule body missing a required property", "PUT", "/api/v1/provisioning/alert-rules/r1", "",
			`{"orgID":1,"folderUID":"f","ruleGroup":"g","condition":"A","data":[],"noDataState":"OK","execErrState":"Error","for":"5m"}`, `property "title" is missing`},
		{"rule body with a bad enum", "PUT", "/api/v1/provisioning/alert-rules/r1", "",
			`{"orgID":1,"folderUID":"f","ruleGroup":"g","title":"t","condition":"A","data":[],"noDataState":"Maybe","execErrState":"Error","for":"5m"}`, "is not one of"},
	} {
		v := ok(c.method, c.path, c.query, c.body)
		if !strings.Contains(strings.Join(v, "\n"), c.want) {
			t.Errorf("%s: violations %v, want one saying %q", c.name, v, c.want)
		}
	}
}

// The fake's answers are the description's shapes: each fixture object
// validates against its definition.
func TestFakeAnswersFollowTheDescription(t *testing.T) {
	spec := loadSpec(t, specPath)
	f := estate(t)
	check := func(def string, v any) {
		b, _ := json.Marshal(v)
		var decoded any
		_ = json.Unmarshal(b, &decoded)
		for _, e := range spec.ValidateValue(def, decoded) {
			t.Errorf("fake %s: %s", def, e)
		}
	}
	for _, fo := range f.folders {
		check("FolderSearchHit", fo)
	}
	for _, d := range f.dashboards {
		check("DashboardFullWithMeta", d)
	}
	check("ProvisionedAlertRules", f.rules)
	// and the check itself bites on a wrong shape
	var bad any
	_ = json.Unmarshal([]byte(`[{"uid":"x","title":"","orgID":"one"}]`), &bad)
	if v := spec.ValidateValue("ProvisionedAlertRules", bad); len(v) == 0 {
		t.Error("a malformed rule list validates")
	}
}
