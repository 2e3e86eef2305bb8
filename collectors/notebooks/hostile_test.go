package notebooks

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// hostileCollector sends hostile.Canary as its Jupyter token, with a
// one-second call timeout and short real retry waits.
func hostileCollector(t *testing.T, url string) *Notebooks {
	t.Helper()
	t.Setenv("TEST_JUPYTER_HOSTILE_TOKEN", hostile.Canary)
	n := New()
	n.JupyterURL, n.TokenEnv = url, "TEST_JUPYTER_HOSTILE_TOKEN"
	n.Timeout = time.Second
	n.Retry = remote.RetryPolicy{Base: 10 * time.Millisecond}
	if err := n.Init(env("jup", "")); err != nil {
		t.Fatal(err)
	}
	return n
}

var hostileCases = []struct {
	name string
	h    func() http.Handler
	want string // in the error
}{
	{"stall", hostile.Stall, "deadline"},
	{"drip", func() http.Handler { return hostile.Drip(50 * time.Millisecond) }, "deadline"},
	{"503 Retry-After 3600", func() http.Handler { return hostile.RetryAfter(503, 3600) }, "HTTP 503"},
	{"header-echoing 502", func() http.Handler { return hostile.EchoHeaders(502) }, "HTTP 502"},
	{"50 MB answer", func() http.Handler { return hostile.Huge(50 << 20) }, "GET"},
	{"answer over the cap", func() http.Handler { return hostile.Huge(70 << 20) }, "GET"},
}

// The whole server misbehaves: the source fails within its bounds, says
// why, and the token is in no text.
func TestHostileWholeServer(t *testing.T) {
	cases := append([]struct {
		name string
		h    func() http.Handler
		want string
	}{{"accepts and stalls (TCP)", nil, "deadline"}}, hostileCases...)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			url := ""
			if tt.h == nil {
				url = "http://" + hostile.AcceptAndStall(t)
			} else {
				url = hostile.Server(t, tt.h()).URL
			}
			sink, err := collectortest.Collect(t, hostileCollector(t, url))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Collect = %v, want the source failed saying %q", err, tt.want)
			}
			out, _ := json.Marshal(sink)
			for _, s := range []string{err.Error(), string(out)} {
				if strings.Contains(s, hostile.Canary) || strings.Contains(s, "<html") {
					t.Errorf("the answer or the token leaked: %s", s)
				}
			}
		})
	}
}

// Only one notebook's answer misbehaves: the error stays at that
// notebook, the other notebook is still reported, nothing leaks.
func TestHostileNotebook(t *testing.T) {
	for _, tt := range hostileCases {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeJupyter(t)
			f.put("ok/bf-7001.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
			f.put("bad/bf-7001.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
			f.set("/api/contents/bad/bf-7001.ipynb", tt.h())
			t.Setenv("TEST_JUPYTER_HOSTILE_TOKEN", fakeToken)
			n := New()
			n.JupyterURL, n.TokenEnv = f.URL(), "TEST_JUPYTER_HOSTILE_TOKEN"
			n.Timeout = time.Second
			n.Retry = remote.RetryPolicy{Base: 10 * time.Millisecond}
			if err := n.Init(env("jup", "")); err != nil {
				t.Fatal(err)
			}
			sink := collectortest.CollectBroken(t, n, "bad/bf-7001.ipynb", tt.want)
			if sink.Artifact("notebooks:///ok/bf-7001.ipynb") == nil {
				t.Error("the healthy notebook was not reported")
			}
			noCanary(t, sink)
		})
	}
}
