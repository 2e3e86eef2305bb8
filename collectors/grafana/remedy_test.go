package grafana

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// The printed curl names the token's variable, never a token, and, run by
// sh, deletes exactly the dashboard or rule named, whatever its uid holds.
func TestGrafanaCurlDeletes(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.EscapedPath()+" "+r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		art  model.Artifact
		want string
	}{
		{model.Artifact{Kind: model.KindDashboard, Name: "BF-1234 monitor", URI: "grafana://g/dashboards/d%3B1",
			Attributes: model.TagsOf(map[string]string{"uid": "d;1", model.AttrAPIURL: srv.URL})},
			"DELETE /api/dashboards/uid/d%3B1 Bearer tok-1"},
		// from a finding alone: the URI names it, GRAFANA_URL the server
		{*inferredGrafana(t, "grafana://g/alert-rules/r-'1"), "DELETE /api/v1/provisioning/alert-rules/r-%271 Bearer tok-1"},
	} {
		var r remedy.Remedy
		grafanaRemoval(&r, &c.art)
		if len(r.Actions) != 1 || !r.Actions[0].Resolves || r.Actions[0].Step != model.StepNormalized {
			t.Fatalf("actions = %+v", r.Actions)
		}
		shell := r.Actions[0].Shell
		if !strings.Contains(shell, `"Authorization: Bearer $GRAFANA_TOKEN"`) || strings.Contains(shell, "tok-1") {
			t.Errorf("the command must name the token's variable: %s", shell)
		}
		mu.Lock()
		got = nil
		mu.Unlock()
		cmd := exec.Command("sh", "-c", shell)
		cmd.Env = append(os.Environ(), "GRAFANA_TOKEN=tok-1", "GRAFANA_URL="+srv.URL)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", shell, err, out)
		}
		mu.Lock()
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s sent %v, want %q", shell, got, c.want)
		}
		mu.Unlock()
	}
}

func inferredGrafana(t *testing.T, uri string) *model.Artifact {
	t.Helper()
	a := &model.Artifact{URI: uri}
	inferGrafana(a)
	if a.Kind != model.KindAlert || a.Name != "r-'1" {
		t.Fatalf("inferred %+v", a)
	}
	return a
}

// The actions are named and irreversible as declared.
func TestGrafanaActionNames(t *testing.T) {
	for kind, want := range map[model.Kind]string{model.KindDashboard: remedy.DeleteDashboard, model.KindAlert: remedy.DeleteAlertRule} {
		var r remedy.Remedy
		grafanaRemoval(&r, &model.Artifact{Kind: kind, Name: "x", URI: "grafana://g/x/x"})
		if len(r.Actions) != 1 || r.Actions[0].Name != want {
			t.Errorf("%s: %+v", kind, r.Actions)
		}
	}
	var r remedy.Remedy
	grafanaRemoval(&r, &model.Artifact{Kind: model.KindTable, Name: "x"})
	if len(r.Actions) != 0 {
		t.Errorf("a table got %+v", r.Actions)
	}
}
