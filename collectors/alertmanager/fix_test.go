package alertmanager

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/fixtest"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// fakeAlertmanager serves GET and DELETE /api/v2/silence/{id} as
// Alertmanager does: DELETE expires the silence, which stays listed.
type fakeAlertmanager struct {
	mu       sync.Mutex
	silences map[string]string // id -> state
	ends     string
}

func (f *fakeAlertmanager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer am-token" {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	id, ok := strings.CutPrefix(r.URL.Path, "/api/v2/silence/")
	state, known := f.silences[id]
	if !ok || !known {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if r.Method == http.MethodDelete {
		f.silences[id] = "expired"
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "endsAt": f.ends, "status": map[string]string{"state": state}})
}

// The lingering silence (BF016) is expired once expire_silence is allowed,
// and left alone when it was extended since the audit.
func TestApplyAlertmanager(t *testing.T) {
	ends := fixtest.Now.AddDate(0, 2, 0)
	for _, c := range []struct {
		name, served, want, state string
	}{
		{"unchanged", ends.Format(time.RFC3339Nano), fix.StatusApplied, "expired"},
		{"extended since", ends.AddDate(0, 1, 0).Format(time.RFC3339Nano), fix.StatusSkipped, "active"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fa := &fakeAlertmanager{silences: map[string]string{"s-1": "active", "other": "active"}, ends: c.served}
			srv := httptest.NewServer(fa)
			t.Cleanup(srv.Close)
			t.Setenv("BFAUDIT_FIXTEST_AM_TOKEN", "am-token")
			src := New()
			src.URL, src.TokenEnv = srv.URL, "BFAUDIT_FIXTEST_AM_TOKEN"
			if err := src.Init(collectors.Env{}); err != nil {
				t.Fatal(err)
			}
			am, err := newActor(src)
			if err != nil {
				t.Fatal(err)
			}
			sys := map[string]remedy.Actor{"am": am}
			est := fixtest.Estate(true)
			est.Artifacts = []model.Artifact{{Kind: model.KindSilence, System: "alertmanager", Source: "am", State: model.StateActive,
				URI: "alertmanager://am/silences/s-1", Name: "s-1", BackfillID: "BF-1234", ExpiresAt: model.At(ends),
				Attributes: model.Attrs(model.AttrMatchers, `{job="daily_revenue"}`, model.AttrAPIURL, srv.URL)}}
			est.Backfills[0].AssetsToRemove = []string{est.Artifacts[0].URI}
			est.Coverage = append(est.Coverage, model.Coverage{Source: "am", Status: model.CoverageOK})
			res := fixtest.Apply(t, fixtest.Inputs(t, est), "BF-1234", sys, fixtest.OpenStore(t), remedy.ExpireSilence)
			if got := fixtest.StatusOf(res, remedy.ExpireSilence); got != c.want {
				t.Errorf("expire_silence: %s, want %s (%+v)", got, c.want, res)
			}
			if fa.silences["s-1"] != c.state || fa.silences["other"] != "active" {
				t.Errorf("silences after: %v", fa.silences)
			}
		})
	}
}

// Acting on an Alertmanager behind a private CA goes through the source's
// client: its ca_file, not the system's roots alone.
func TestAlertmanagerActsWithTheSourcesTLS(t *testing.T) {
	fa := &fakeAlertmanager{silences: map[string]string{"s-1": "active"}, ends: fixtest.Now.Format(time.RFC3339Nano)}
	srv := httptest.NewTLSServer(fa)
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BFAUDIT_FIXTEST_AM_TOKEN", "am-token")
	src := New()
	src.URL, src.TokenEnv, src.CAFile = srv.URL, "BFAUDIT_FIXTEST_AM_TOKEN", caFile
	if err := src.Init(collectors.Env{}); err != nil {
		t.Fatal(err)
	}
	silence := &model.Artifact{Kind: model.KindSilence, Name: "s-1", URI: "alertmanager://am/silences/s-1"}
	am, err := newActor(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := am.Read(context.Background(), silence, remedy.Action{Name: remedy.ExpireSilence})
	if err != nil || !got.Found {
		t.Fatalf("Read = %+v, %v; want the silence read through the source's CA", got, err)
	}
}
