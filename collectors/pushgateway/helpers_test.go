package pushgateway

import (
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// env is what the audit hands a source named name.
func env(name string) collectors.Env {
	return collectors.Env{Source: name, Selector: correlate.MustSelector(), Now: time.Now}
}

// collectorOn is a source named name on the gateway at url, initialised,
// with a short call timeout and short retry waits.
func collectorOn(t *testing.T, url, name string) *Pushgateway {
	t.Helper()
	p := New()
	p.URL, p.Timeout, p.Retry = url, 2*time.Second, remote.RetryPolicy{Base: 10 * time.Millisecond}
	if err := p.Init(env(name)); err != nil {
		t.Fatal(err)
	}
	return p
}

// realURL is the address of the real Pushgateway the tests push to.
func realURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("BFAUDIT_TEST_PUSHGATEWAY_URL")
	if u == "" {
		t.Skip("set BFAUDIT_TEST_PUSHGATEWAY_URL=http://127.0.0.1:9091 (a running Prometheus Pushgateway: " +
			"prometheus-pushgateway --web.listen-address=127.0.0.1:9091, from Debian's prometheus-pushgateway; .ci/run starts one) to run the real-Pushgateway tests")
	}
	return strings.TrimRight(u, "/")
}

// newID is a backfill id no other run uses, and the number in it.
func newID() (id, n string) {
	n = strconv.Itoa(100000 + rand.IntN(900000))
	return "BF-" + n, n
}

// push PUTs a replay's progress as the group of labels, as a replay job
// would, and deletes the group when the test ends.
func push(t *testing.T, base string, labels map[string]string) {
	t.Helper()
	send := func(method, body string) {
		req, err := http.NewRequest(method, base+"/metrics"+keyPath(labels), strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: HTTP %d", method, req.URL, resp.StatusCode)
		}
	}
	send(http.MethodPut, "# TYPE bf_last_interval_done gauge\nbf_last_interval_done 1.7672256e+09\n# TYPE bf_rows_written counter\nbf_rows_written 48213\n")
	t.Cleanup(func() { send(http.MethodDelete, "") })
}
