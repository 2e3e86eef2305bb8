package airflow

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// fakeDAGAPI follows Airflow's stable REST API for the calls fix makes:
// /api/v2 with a JWT from POST /auth/token (Airflow 3), or /api/v1 with
// basic auth (Airflow 2), where /api/v2/version is a 404.
type fakeDAGAPI struct {
	version string
	mu      sync.Mutex
	dags    map[string]bool // dag id -> is_paused
	calls   []string
}

func (f *fakeDAGAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.EscapedPath()+"?"+r.URL.RawQuery)
	prefix := "/api/v" + f.version
	notFound := func() {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"detail":"not found","status":404,"title":"Not Found"}`))
	}
	switch {
	case r.URL.Path == "/api/v2/version" && f.version == "2":
		_, _ = w.Write([]byte(`{"version":"3.0.2"}`))
		return
	case r.URL.Path == "/api/v1/version" && f.version == "1":
		_, _ = w.Write([]byte(`{"version":"2.10.5"}`))
		return
	case r.URL.Path == "/auth/token" && r.Method == http.MethodPost && f.version == "2":
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		if body["username"] != "bfaudit" || body["password"] != "s3cret-pass" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"access_token":"jwt-token"}`))
		return
	case !strings.HasPrefix(r.URL.Path, prefix+"/dags/"):
		notFound()
		return
	}
	if u, p, ok := r.BasicAuth(); (f.version == "1" && (!ok || u != "bfaudit" || p != "s3cret-pass")) ||
		(f.version == "2" && r.Header.Get("Authorization") != "Bearer jwt-token") {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	id := strings.TrimPrefix(r.URL.Path, prefix+"/dags/")
	paused, ok := f.dags[id]
	if !ok {
		notFound()
		return
	}
	switch r.Method {
	case http.MethodGet:
	case http.MethodPatch:
		var body struct {
			IsPaused *bool `json:"is_paused"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.IsPaused == nil || r.URL.Query().Get("update_mask") != "is_paused" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		paused = *body.IsPaused
		f.dags[id] = paused
	case http.MethodDelete:
		delete(f.dags, id)
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"dag_id": id, "is_paused": paused})
}

// dagEstate is a verified backfill with its replay DAG as the airflow
// collector emits it.
func dagEstate(dag string, paused, archived bool) *model.Estate {
	est := fixtest.Estate(archived)
	state := model.StateEnabled
	if paused {
		state = model.StatePaused
	}
	est.Artifacts = []model.Artifact{{Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", Scope: dag, State: state,
		URI: "airflow://scheduler/dags/" + url.PathEscape(dag), Name: dag, BackfillID: "BF-1234",
		Attributes: model.TagsOf(map[string]string{AttrPaused: map[bool]string{true: "true", false: "false"}[paused]})}}
	est.Backfills[0].AssetsToRemove = []string{est.Artifacts[0].URI}
	return est
}

// fixSource is the source a fix acts through, decoded as a config would:
// its client and credentials are the reads'.
func fixSource(t *testing.T, url string, set func(*Airflow)) *Airflow {
	t.Helper()
	c := New()
	c.URL = url
	set(c)
	if err := c.Init(env("scheduler")); err != nil {
		t.Fatal(err)
	}
	return c
}

// The DAG is paused (reversible, so by default), then deleted once the
// record is archived and delete_job allowed, on Airflow 3 and Airflow 2.
func TestApplyAirflow(t *testing.T) {
	for _, version := range []string{"2", "1"} {
		t.Run("api v"+version, func(t *testing.T) {
			dag := "bf_1234.replay"
			fa := &fakeDAGAPI{version: version, dags: map[string]bool{dag: false, "daily_revenue": false}}
			srv := httptest.NewServer(fa)
			t.Cleanup(srv.Close)
			t.Setenv("BFAUDIT_FIXTEST_AIRFLOW_PASSWORD", "s3cret-pass")
			sys := map[string]remedy.Actor{"scheduler": newAirflow(fixSource(t, srv.URL, func(c *Airflow) {
				c.Username, c.PasswordEnv = "bfaudit", "BFAUDIT_FIXTEST_AIRFLOW_PASSWORD"
			}))}

			res := fixtest.Apply(t, fixtest.Inputs(t, dagEstate(dag, false, false)), "BF-1234", sys, fixtest.OpenStore(t))
			if got := fixtest.StatusOf(res, remedy.PauseJob); got != fix.StatusApplied {
				t.Fatalf("pause_job: %s %+v", got, res)
			}
			if got := fixtest.StatusOf(res, remedy.DeleteJob); got != fix.StatusWaits {
				t.Errorf("delete_job before the record: %s", got)
			}
			if !fa.dags[dag] {
				t.Errorf("DAG not paused; calls %v", fa.calls)
			}
			res = fixtest.Apply(t, fixtest.Inputs(t, dagEstate(dag, true, true)), "BF-1234", sys, fixtest.OpenStore(t), remedy.DeleteJob)
			if got := fixtest.StatusOf(res, remedy.DeleteJob); got != fix.StatusApplied {
				t.Fatalf("delete_job: %s %+v", got, res)
			}
			if _, ok := fa.dags[dag]; ok {
				t.Errorf("DAG still there; calls %v", fa.calls)
			}
			if _, ok := fa.dags["daily_revenue"]; !ok {
				t.Error("the production DAG went")
			}
		})
	}
}

// A DAG unpaused since the audit (someone is using it) is left alone.
func TestApplyAirflowSkipsChanged(t *testing.T) {
	dag := "bf_1234_replay"
	fa := &fakeDAGAPI{version: "2", dags: map[string]bool{dag: false}}
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)
	t.Setenv("BFAUDIT_FIXTEST_AIRFLOW_TOKEN", "jwt-token")
	sys := map[string]remedy.Actor{"scheduler": newAirflow(fixSource(t, srv.URL, func(c *Airflow) { c.TokenEnv = "BFAUDIT_FIXTEST_AIRFLOW_TOKEN" }))}
	res := fixtest.Apply(t, fixtest.Inputs(t, dagEstate(dag, true, true)), "BF-1234", sys, fixtest.OpenStore(t), remedy.DeleteJob)
	for _, r := range res {
		if r.Item.Action != nil && r.Item.Action.Name == remedy.DeleteJob && (r.Status != fix.StatusSkipped || !strings.Contains(r.Reason, `paused was "true", is "false"`)) {
			t.Errorf("delete_job on a DAG unpaused since: %s %s", r.Status, r.Reason)
		}
	}
	if _, ok := fa.dags[dag]; !ok {
		t.Error("a changed DAG was deleted")
	}
	obs, err := sys["scheduler"].Read(context.Background(), &model.Artifact{Kind: model.KindSchedulerJob, URI: "airflow://scheduler/dags/gone"}, remedy.Action{})
	if err != nil || obs.Found {
		t.Errorf("a DAG the API does not know: %+v %v", obs, err)
	}
}
