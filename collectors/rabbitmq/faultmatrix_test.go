package rabbitmq_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/rabbitmq"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// TestFaultMatrix runs against the real broker: the whole source (its
// user deleted), one configured vhost (the user's permission on it
// deleted; also the default vhost "/", whose unit is "%2F") and one
// discovered vhost (its queue listing answering 500).
func TestFaultMatrix(t *testing.T) {
	api := os.Getenv("BFAUDIT_TEST_RABBITMQ_API")
	if api == "" {
		t.Skip("BFAUDIT_TEST_RABBITMQ_API is unset; run with BFAUDIT_TEST_RABBITMQ_API=http://guest:guest@127.0.0.1:15672 (.ci/run sets it)")
	}
	admin, err := url.Parse(api)
	if err != nil || admin.User == nil {
		t.Fatalf("BFAUDIT_TEST_RABBITMQ_API must be a URL with credentials")
	}
	vh := func(f *matrixFixture) string { return f.vhosts[0] }
	revoke := func(vhost string) func(t *testing.T) (collectors.Collector, func()) {
		return func(t *testing.T) (collectors.Collector, func()) {
			f := newMatrixFixture(t, admin, vhost)
			return f.collector(t, f.vhosts, f.api), func() {
				f.call(t, http.MethodDelete, "/api/permissions/"+url.PathEscape(vh(f))+"/"+f.user, nil)
			}
		}
	}
	faultmatrix.Run(t, "rabbitmq", []faultmatrix.Unit{
		{Kind: "source", Scope: "", Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := newMatrixFixture(t, admin, "bfm_vh_a")
			return f.collector(t, f.vhosts, f.api), func() { f.call(t, http.MethodDelete, "/api/users/"+f.user, nil) }
		}},
		{Kind: "vhost", Scope: "bfm_vh_a", Setup: revoke("bfm_vh_a")},
		{Kind: "vhost", Scope: "%2F", Setup: revoke("/")},
		{Kind: "vhost (discovered)", Scope: "bfm_vh_a", Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := newMatrixFixture(t, admin, "bfm_vh_a")
			var broken atomic.Bool
			front := httputil.NewSingleHostReverseProxy(f.api)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if broken.Load() && strings.HasPrefix(r.URL.EscapedPath(), "/api/queues/"+url.PathEscape(vh(f))) {
					http.Error(w, `{"error":"internal_server_error","reason":"boom"}`, http.StatusInternalServerError)
					return
				}
				front.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			u, _ := url.Parse(srv.URL)
			return f.collector(t, nil, u), func() { broken.Store(true) }
		}},
	})
}

// matrixFixture is a pair of vhosts with BF-7001's retry queue in the
// first (the one named; "/" is shared and left in place), and a management (not administrator) user allowed in both: such a
// user sees only the vhosts it has permissions on.
type matrixFixture struct {
	admin    *url.URL
	api      *url.URL // without credentials
	vhosts   []string
	user, pw string
}

// The vhost names are fixed so the matrix can name its scope; a random
// suffix would not be known when the units are listed. Fixtures are built
// and removed one unit at a time.
func newMatrixFixture(t *testing.T, admin *url.URL, first string) *matrixFixture {
	t.Helper()
	n := fmt.Sprint(rand.Int64N(1_000_000_000))
	api := *admin
	api.User = nil
	f := &matrixFixture{admin: admin, api: &api, vhosts: []string{first, "bfm_vh_b"},
		user: "bfm_u_" + n, pw: "pw-" + n}
	t.Cleanup(func() {
		f.call(t, http.MethodDelete, "/api/users/"+f.user, nil)
		f.call(t, http.MethodDelete, "/api/queues/"+url.PathEscape(first)+"/bf_7001_retry", nil)
		for _, v := range f.vhosts {
			if v != "/" {
				f.call(t, http.MethodDelete, "/api/vhosts/"+url.PathEscape(v), nil)
			}
		}
	})
	f.must(t, http.MethodPut, "/api/users/"+f.user, map[string]string{"password": f.pw, "tags": "management"})
	for _, v := range f.vhosts {
		if v != "/" {
			f.must(t, http.MethodPut, "/api/vhosts/"+url.PathEscape(v), nil)
		}
		f.must(t, http.MethodPut, "/api/permissions/"+url.PathEscape(v)+"/"+f.user,
			map[string]string{"configure": ".*", "write": ".*", "read": ".*"})
	}
	f.must(t, http.MethodPut, "/api/queues/"+url.PathEscape(f.vhosts[0])+"/bf_7001_retry", map[string]any{"durable": true})
	f.must(t, http.MethodPut, "/api/queues/"+url.PathEscape(f.vhosts[1])+"/orders", map[string]any{"durable": true})
	return f
}

func (f *matrixFixture) collector(t *testing.T, vhosts []string, api *url.URL) *rabbitmq.RabbitMQ {
	t.Helper()
	t.Setenv("BFAUDIT_TEST_RMQ_MATRIX_PW", f.pw)
	r := &rabbitmq.RabbitMQ{URL: api.String(), Username: f.user, PasswordEnv: "BFAUDIT_TEST_RMQ_MATRIX_PW", Vhosts: vhosts,
		PageSize: rabbitmq.DefaultPageSize, Timeout: 10 * time.Second, Retry: remote.RetryPolicy{Attempts: 1}}
	if err := r.Init(collectors.Env{Source: "rmq-matrix", Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *matrixFixture) must(t *testing.T, method, path string, body any) {
	t.Helper()
	if code, out := f.call(t, method, path, body); code >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, code, out)
	}
}

func (f *matrixFixture) call(t *testing.T, method, path string, body any) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, f.api.String()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := f.admin.User.Password()
	req.SetBasicAuth(f.admin.User.Username(), pw)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}
