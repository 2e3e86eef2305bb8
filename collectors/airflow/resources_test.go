package airflow

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// canaries are the secrets testdata/v1.json and v2.json put in
// connections (password, extra, a host holding user:password) and
// variables (values): none may leave the collector.
var canaries = []string{"canary-conn-password-7001", "canary-conn-extra-7001", "canary-host-pw-7001",
	"canary-variable-value-7001", "canary-untied-extra", "canary-untied-variable"}

func TestPoolsConnectionsVariables(t *testing.T) {
	for _, version := range []string{"1", "2"} {
		t.Run("api v"+version, func(t *testing.T) {
			f := newFakeAirflow(t, version)
			c, _ := newCollector(t, f, version)
			sink := collect(t, c)
			if len(sink.Errors) != 0 {
				t.Fatalf("errors: %+v", sink.Errors)
			}
			prefix := "airflow://airflow-test/"
			want := map[string]struct {
				kind  model.Kind
				scope string
				how   string
				attrs map[string]string
			}{
				"pools/bf_7001_backfill": {model.KindPool, "pools", "name", map[string]string{
					AttrSlots: "16", AttrOccupiedSlots: "3", AttrRunningSlots: "2", AttrQueuedSlots: "1", AttrOpenSlots: "13"}},
				"pools/replay_scratch": {model.KindPool, "pools", "description", map[string]string{AttrSlots: "-1"}},
				"connections/bf_7001_scratch_pg": {model.KindCredential, "connections", "name", map[string]string{
					AttrConnType: "postgres", AttrHost: "db.internal.example.com"}},
				// Its host carries a password: left out whole.
				"connections/replay_sink": {model.KindCredential, "connections", "description", map[string]string{AttrConnType: "http"}},
				"variables/bf_7001_range": {model.KindVariable, "variables", "name", nil},
				"variables/replay_window": {model.KindVariable, "variables", "description", nil},
			}
			got := map[string]bool{}
			for _, a := range sink.Artifacts {
				if a.Kind != model.KindPool && a.Kind != model.KindCredential && a.Kind != model.KindVariable {
					continue
				}
				rel := strings.TrimPrefix(a.URI, prefix)
				got[rel] = true
				w, ok := want[rel]
				if !ok {
					t.Errorf("untied object reported: %s", a.URI)
					continue
				}
				if a.Kind != w.kind || a.Scope != w.scope || a.Correlation != w.how || !model.SameID(a.BackfillID, "BF-7001") {
					t.Errorf("%s: kind %s scope %q how %q id %q", rel, a.Kind, a.Scope, a.Correlation, a.BackfillID)
				}
				if a.Attributes.Len() != len(w.attrs) && w.kind != model.KindPool {
					t.Errorf("%s: attributes %v, want %v", rel, a.Attributes, w.attrs)
				}
				for k, v := range w.attrs {
					if a.Attr(k) != v {
						t.Errorf("%s: %s = %q, want %q", rel, k, a.Attr(k), v)
					}
				}
			}
			for rel := range want {
				if !got[rel] {
					t.Errorf("%s not reported", rel)
				}
			}
			for _, p := range []string{"/pools", "/connections", "/variables"} {
				if rs := f.seen("/api/v" + version + p); len(rs) < 2 {
					t.Errorf("%s read in %d pages, want every page of 3", p, len(rs))
				}
			}
			assertNoCanary(t, sink, nil)
		})
	}
}

// A 403 on /connections (the account may not read connections) is an
// error at that unit only, naming the permission; pools, variables and
// the DAGs are still reported and answered.
func TestConnectionsForbidden(t *testing.T) {
	f := newFakeAirflow(t, "2")
	f.failAll["/api/v2/connections"] = http.StatusForbidden
	c, _ := newCollector(t, f, "2")
	sink := collect(t, c)
	if got := errorScopes(sink); len(got) != 1 || got[0] != "connections" {
		t.Fatalf("errors at %v, want one at connections", got)
	}
	if msg := sink.Errors[0].Error; !strings.Contains(msg, "can_read on Connections") || !strings.Contains(msg, "connections: false") {
		t.Errorf("error does not say what permission is missing: %s", msg)
	}
	cov := covOf(sink)
	if cov.Answered("connections") || !cov.Answered("pools") || !cov.Answered("variables") || !cov.Answered("dags") {
		t.Errorf("answered: connections %v pools %v variables %v dags %v", cov.Answered("connections"),
			cov.Answered("pools"), cov.Answered("variables"), cov.Answered("dags"))
	}
	if len(uris(sink, model.KindCredential)) != 0 || len(uris(sink, model.KindPool)) == 0 || len(uris(sink, model.KindSchedulerJob)) == 0 {
		t.Errorf("artifacts: %v", uris(sink, ""))
	}
}

// Each listing can be turned off; then it is not called and its unit says
// nothing.
func TestResourceListingsOff(t *testing.T) {
	f := newFakeAirflow(t, "2")
	c, _ := newCollectorWith(t, f, "2", func(c *Airflow) { c.Connections, c.Variables = false, false })
	sink := collect(t, c)
	if len(f.seen("/api/v2/connections"))+len(f.seen("/api/v2/variables")) != 0 {
		t.Error("a listing turned off was called")
	}
	if len(uris(sink, model.KindPool)) == 0 || len(uris(sink, model.KindCredential))+len(uris(sink, model.KindVariable)) != 0 {
		t.Errorf("artifacts: %v", uris(sink, ""))
	}
}

// A failing listing's error text holds no secret either: the fake echoes
// nothing, so this server answers 500 with a body holding the canaries.
func TestResourceErrorsHoldNoSecret(t *testing.T) {
	f := newFakeAirflow(t, "2")
	f.misbehave["/api/v2/variables"] = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"variables": []any{map[string]any{"key": 7, "value": canaries[3]}}, "total_entries": 1})
	})
	c, _ := newCollector(t, f, "2")
	sink := collect(t, c)
	if got := errorScopes(sink); len(got) != 1 || got[0] != "variables" {
		t.Fatalf("errors at %v, want one at variables", got)
	}
	assertNoCanary(t, sink, nil)
}

func TestSafeHost(t *testing.T) {
	for h, ok := range map[string]bool{
		"db.example.com": true, "10.0.0.7": true, "https://api.example.com/v1": true,
		"user:pw@db.example.com": false, "https://user:pw@api.example.com": false, "https://api.example.com/?token=abc": false,
		"": false, "db.example.com; rm -rf /": false, "password=hunter22": false,
	} {
		if _, got := safeHost(h); got != ok {
			t.Errorf("safeHost(%q) = %v, want %v", h, got, ok)
		}
	}
}

// assertNoCanary checks everything the collector handed the sink.
func assertNoCanary(t *testing.T, sink *collectors.TestSink, extra []string) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"artifacts": sink.Artifacts, "backfills": sink.Backfills, "errors": sink.Errors})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(canaries, extra...) {
		if strings.Contains(string(b), s) {
			t.Errorf("secret %q left the collector", s)
		}
	}
}
