package notebooks

import (
	"net/http"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// hostileCollector reads the Jupyter server at url with token as its
// secret, a one-second call timeout and short real retry waits.
func hostileCollector(t *testing.T, url, token string) collectors.Collector {
	t.Helper()
	t.Setenv("TEST_JUPYTER_HOSTILE_TOKEN", token)
	n := New()
	n.JupyterURL, n.TokenEnv = url, "TEST_JUPYTER_HOSTILE_TOKEN"
	n.Timeout = time.Second
	n.Retry = remote.RetryPolicy{Base: 10 * time.Millisecond}
	if err := n.Init(env("jup", "")); err != nil {
		t.Fatal(err)
	}
	return n
}

// The whole server misbehaves: the source fails within its bounds, says
// why, and the token is in no text.
func TestHostileWholeServer(t *testing.T) {
	collectortest.HostileWholeServer(t, func(t *testing.T, url string) collectors.Collector {
		return hostileCollector(t, url, hostile.Canary)
	})
}

// Only one notebook's answer misbehaves: the error stays at that
// notebook, the other notebook is still reported, nothing leaks.
func TestHostileNotebook(t *testing.T) {
	collectortest.HostileUnit(t, "bad/bf-7001.ipynb",
		func(t *testing.T, url string) collectors.Collector { return hostileCollector(t, url, fakeToken) },
		func(t *testing.T, h http.Handler) string {
			f := newFakeJupyter(t)
			f.put("ok/bf-7001.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
			f.put("bad/bf-7001.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
			f.set("/api/contents/bad/bf-7001.ipynb", h)
			return f.URL()
		},
		func(t *testing.T, sink *collectors.TestSink) {
			if sink.Artifact("notebooks:///ok/bf-7001.ipynb") == nil {
				t.Error("the healthy notebook was not reported")
			}
			noCanary(t, sink)
		})
}
