package unleash

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/fixtest"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// fakeUnleashAdmin serves GET and DELETE /api/admin/projects/{p}/features/{name}
// as Unleash 7 does: DELETE archives the flag, whose detail then answers 404.
type fakeUnleashAdmin struct {
	mu    sync.Mutex
	flags map[string][]string // "project/name" -> environments it is on in; absent when archived
}

func (f *fakeUnleashAdmin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "*:*.unleash-token" {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/admin/projects/")
	p, name, _ := strings.Cut(rest, "/features/")
	on, known := f.flags[p+"/"+name]
	if !ok || !known {
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"name": "NotFoundError", "message": "Could not find feature flag with name " + name})
		return
	}
	if r.Method == http.MethodDelete {
		delete(f.flags, p+"/"+name)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	envs := []map[string]any{{"name": "development", "enabled": false}}
	for _, e := range on {
		envs = append(envs, map[string]any{"name": e, "enabled": true})
	}
	json.NewEncoder(w).Encode(map[string]any{"name": name, "project": p, "archived": false, "environments": envs})
}

// The lingering flag (BF007) is archived (archive_flag is reversible, so
// allowed without fix.allow), and left alone when it was turned on in
// another environment since the audit.
func TestApplyUnleash(t *testing.T) {
	for _, c := range []struct {
		name   string
		served []string
		want   string
		left   bool
	}{
		{"unchanged", []string{"production"}, fix.StatusApplied, false},
		{"turned on elsewhere since", []string{"development", "production"}, fix.StatusSkipped, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fu := &fakeUnleashAdmin{flags: map[string][]string{"default/bf-1234-guard": c.served, "default/other": {"production"}}}
			srv := httptest.NewServer(fu)
			t.Cleanup(srv.Close)
			t.Setenv("BFAUDIT_FIXTEST_UNLEASH_TOKEN", "*:*.unleash-token")
			src := New()
			src.URL, src.TokenEnv = srv.URL, "BFAUDIT_FIXTEST_UNLEASH_TOKEN"
			if err := src.Init(collectors.Env{Selector: correlate.MustSelector()}); err != nil {
				t.Fatal(err)
			}
			sys, err := newActor(src)
			if err != nil {
				t.Fatal(err)
			}
			est := fixtest.Estate(true)
			est.Artifacts = []model.Artifact{{Kind: model.KindFeatureFlag, System: "unleash", Source: "unleash", State: model.StateEnabled,
				Scope: "default/bf-1234-guard", URI: "unleash://unleash/projects/default/features/bf-1234-guard", Name: "bf-1234-guard", BackfillID: "BF-1234",
				Attributes: model.TagsOf(map[string]string{model.AttrEnabledIn: "production", model.AttrProduction: "true", model.AttrProject: "default", model.AttrAPIURL: srv.URL})}}
			est.Coverage = append(est.Coverage, model.Coverage{Source: "unleash", Status: model.CoverageOK})
			res := fixtest.Apply(t, fixtest.Inputs(t, est), "BF-1234", map[string]remedy.Actor{"unleash": sys}, fixtest.OpenStore(t))
			if got := fixtest.StatusOf(res, remedy.ArchiveFlag); got != c.want {
				t.Errorf("archive_flag: %s, want %s (%+v)", got, c.want, res)
			}
			_, left := fu.flags["default/bf-1234-guard"]
			if left != c.left || fu.flags["default/other"] == nil {
				t.Errorf("flags after: %v", fu.flags)
			}
		})
	}
}

// A source read from an export has nothing to act through; one with a
// server acts through the source's client.
func TestUnleashSystemBuild(t *testing.T) {
	src := New()
	src.ExportDir = "testdata"
	if s, err := newActor(src); s != nil || err != nil {
		t.Errorf("export: %v %v, want no system", s, err)
	}
	src = New()
	src.URL = "http://unleash:4242"
	if err := src.Init(collectors.Env{Selector: correlate.MustSelector()}); err != nil {
		t.Fatal(err)
	}
	if s, err := newActor(src); s == nil || err != nil || src.client == nil {
		t.Errorf("server: %v %v", s, err)
	}
	flag := &model.Artifact{Kind: model.KindSilence, URI: "unleash://u/projects/p/features/x"}
	if _, err := (&Unleash{}).Read(context.Background(), flag, remedy.Action{}); err == nil {
		t.Error("a silence read as a flag")
	}
}

// Against the real Unleash: a flag tied to a backfill is read, archived,
// and the collector then reports it archived.
func TestUnleashRealServer(t *testing.T) {
	base, token := os.Getenv("BFAUDIT_TEST_UNLEASH_URL"), os.Getenv("BFAUDIT_TEST_UNLEASH_TOKEN")
	if base == "" || token == "" {
		t.Skip("set BFAUDIT_TEST_UNLEASH_URL and BFAUDIT_TEST_UNLEASH_TOKEN (an Unleash 7 and an admin API token; .ci/run starts one) to run the real-server test")
	}
	b := make([]byte, 3)
	rand.Read(b)
	name := fmt.Sprintf("bf-%d-fix-test", 100000+(int(b[0])<<16|int(b[1])<<8|int(b[2]))%900000)
	call := func(method, path string, body any) {
		t.Helper()
		var rd *bytes.Reader
		if body != nil {
			j, _ := json.Marshal(body)
			rd = bytes.NewReader(j)
		} else {
			rd = bytes.NewReader(nil)
		}
		req, _ := http.NewRequest(method, strings.TrimRight(base, "/")+path, rd)
		req.Header.Set("Authorization", token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: HTTP %d", method, path, resp.StatusCode)
		}
	}
	call(http.MethodPost, "/api/admin/projects/default/features", map[string]any{"name": name, "type": "operational"})
	// The flag is left in the archive the fix puts it in: Unleash 7.5.1
	// records an archived flag's lifecycle stage asynchronously, and
	// deleting it from the archive at once races that insert; on a busy
	// machine the server dies on the foreign-key error. Names carry a
	// random suffix, and CI makes Unleash's database afresh for each run.
	call(http.MethodPost, "/api/admin/projects/default/features/"+name+"/environments/development/strategies", map[string]any{"name": "default"})
	call(http.MethodPost, "/api/admin/projects/default/features/"+name+"/environments/development/on", nil)

	t.Setenv("BFAUDIT_FIXTEST_UNLEASH_TOKEN", token)
	src := New()
	src.URL, src.TokenEnv, src.Timeout = base, "BFAUDIT_FIXTEST_UNLEASH_TOKEN", 10*time.Second
	src.Projects = []string{"default"}
	if err := src.Init(collectors.Env{Source: "unleash", Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	collect := func() *model.Artifact {
		t.Helper()
		sink := collectors.NewTestSink()
		if err := collectors.Collect(context.Background(), src, sink); err != nil || len(sink.Errors) > 0 {
			t.Fatalf("Collect: %v %+v", err, sink.Errors)
		}
		return sink.Artifact("unleash://unleash/projects/default/features/" + name)
	}
	a := collect()
	if a == nil || a.State != model.StateEnabled || a.Attr(model.AttrEnabledIn) != "development" {
		t.Fatalf("before: %+v", a)
	}
	sys, err := newActor(src)
	if err != nil {
		t.Fatal(err)
	}
	act := remedy.Action{Name: remedy.ArchiveFlag}
	got, err := sys.Read(context.Background(), a, act)
	if err != nil || !got.Found || got.State[model.AttrEnabledIn] != "development" || got.State[model.AttrEnabledIn] != sys.Expected(a, act)[model.AttrEnabledIn] {
		t.Fatalf("Read = %+v, %v; want it on in development, as the audit saw it", got, err)
	}
	if err := sys.Act(context.Background(), a, act); err != nil {
		t.Fatal(err)
	}
	if got, err := sys.Read(context.Background(), a, act); err != nil || got.Found {
		t.Errorf("Read after archiving = %+v, %v; want it gone", got, err)
	}
	if after := collect(); after == nil || after.State != model.StateDeleted || after.Attr(model.AttrArchived) != "true" {
		t.Errorf("after: %+v, want the flag reported archived", after)
	}
}
