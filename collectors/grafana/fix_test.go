package grafana

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	"github.com/bfaudit/bfaudit/testkit/swagger"
)

// fakeGrafanaAPI serves GET and DELETE of dashboards and alert rules as
// Grafana does, behind a check of every request against Grafana's API
// description (the collector's testdata).
type fakeGrafanaAPI struct {
	mu         sync.Mutex
	dashboards map[string]int // uid -> version
	rules      map[string]string
}

func (f *fakeGrafanaAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer gf-token" {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if uid, ok := strings.CutPrefix(r.URL.Path, "/api/dashboards/uid/"); ok {
		v, known := f.dashboards[uid]
		switch {
		case !known:
			w.WriteHeader(http.StatusNotFound)
		case r.Method == http.MethodDelete:
			delete(f.dashboards, uid)
			_ = json.NewEncoder(w).Encode(map[string]any{"title": uid, "message": "Dashboard deleted", "uid": uid})
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{"dashboard": map[string]any{"uid": uid, "title": uid}, "meta": map[string]any{"version": v}})
		}
		return
	}
	if uid, ok := strings.CutPrefix(r.URL.Path, "/api/v1/provisioning/alert-rules/"); ok {
		upd, known := f.rules[uid]
		switch {
		case !known:
			w.WriteHeader(http.StatusNotFound)
		case r.Method == http.MethodDelete:
			delete(f.rules, uid)
			w.WriteHeader(http.StatusNoContent)
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{"uid": uid, "title": uid, "updated": upd})
		}
		return
	}
	w.WriteHeader(http.StatusNotFound)
}

// A dashboard and an alert rule made for a finished backfill (BF007) are
// deleted once delete_dashboard and delete_alert_rule are allowed, and a
// dashboard edited since the audit is left alone; every request the fix
// sends is one Grafana's API description allows.
func TestApplyGrafana(t *testing.T) {
	spec, err := swagger.Load("testdata/grafana-api-extract.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		served     int
		want, left string
	}{
		{"unchanged", 3, fix.StatusApplied, ""},
		{"edited since", 4, fix.StatusSkipped, "d-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fg := &fakeGrafanaAPI{dashboards: map[string]int{"d-1": c.served, "other": 1},
				rules: map[string]string{"r-1": "2026-01-05T00:00:00Z"}}
			rec := &swagger.Recorder{Spec: spec}
			srv := httptest.NewServer(rec.Wrap(fg))
			t.Cleanup(srv.Close)
			t.Setenv("BFAUDIT_FIXTEST_GRAFANA_TOKEN", "gf-token")
			src := New()
			src.URL, src.TokenEnv = srv.URL, "BFAUDIT_FIXTEST_GRAFANA_TOKEN"
			if err := src.Init(collectors.Env{}); err != nil {
				t.Fatal(err)
			}
			sys0, err := newActor(src)
			if err != nil {
				t.Fatal(err)
			}
			sys := map[string]remedy.Actor{"gf": sys0}
			est := fixtest.Estate(true)
			updated := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
			est.Artifacts = []model.Artifact{
				{Kind: model.KindDashboard, System: "grafana", Source: "gf", State: model.StateActive, Scope: "analytics/d-1",
					URI: "grafana://gf/dashboards/d-1", Name: "BF-1234 monitor", BackfillID: "BF-1234",
					Attributes: model.TagsOf(map[string]string{AttrUID: "d-1", AttrVersion: "3", model.AttrTemporary: "true",
						model.AttrAPIURL: srv.URL})},
				{Kind: model.KindAlert, System: "grafana", Source: "gf", State: model.StateActive, Scope: "analytics",
					URI: "grafana://gf/alert-rules/r-1", Name: "BF-1234 lag", BackfillID: "BF-1234", ModifiedAt: model.At(updated),
					Attributes: model.TagsOf(map[string]string{AttrUID: "r-1", model.AttrWatchesOnly: "true",
						model.AttrAPIURL: srv.URL})},
			}
			est.Coverage = append(est.Coverage, model.Coverage{Source: "gf", Status: model.CoverageOK})
			res := fixtest.Apply(t, fixtest.Inputs(t, est), "BF-1234", sys, fixtest.OpenStore(t), remedy.DeleteDashboard, remedy.DeleteAlertRule)
			if got := fixtest.StatusOf(res, remedy.DeleteDashboard); got != c.want {
				t.Errorf("delete_dashboard: %s, want %s (%+v)", got, c.want, res)
			}
			if got := fixtest.StatusOf(res, remedy.DeleteAlertRule); got != fix.StatusApplied {
				t.Errorf("delete_alert_rule: %s, want applied (%+v)", got, res)
			}
			_, left := fg.dashboards["d-1"]
			if left != (c.left == "d-1") || fg.dashboards["other"] != 1 || len(fg.rules) != 0 {
				t.Errorf("after: dashboards %v, rules %v", fg.dashboards, fg.rules)
			}
			if v := rec.Violations(); len(v) > 0 {
				t.Errorf("requests outside Grafana's API description: %v", v)
			}
			if len(rec.Requests()) == 0 {
				t.Error("no request reached Grafana")
			}
		})
	}
}
