package gcpiam

import (
	"cmp"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"
)

// endlessAccounts answers a project's policy with an empty one and its
// account listing with one account and a next page token, forever: the
// same each time, or fresh ones.
func endlessAccounts(fresh bool) http.Handler {
	var mu sync.Mutex
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ":getIamPolicy") {
			fmt.Fprint(w, `{"version":1,"etag":"ACAB"}`)
			return
		}
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		email, next := "loop@bad.iam.gserviceaccount.com", "again"
		if fresh {
			email, next = fmt.Sprintf("loop-%d@bad.iam.gserviceaccount.com", i), fmt.Sprint(i)
		}
		fmt.Fprintf(w, `{"accounts":[%s],"nextPageToken":%q}`, accountJSON("bad", email, "x", false), next)
	})
}

const runnerKeys = "/serviceAccounts/bf-1234-runner@p-one.iam.gserviceaccount.com/keys"

// TestHostileServers puts a misbehaving server behind the real clients
// for one project (policy and account listing) or one account's keys,
// while the fake answers the rest: each case ends within the test's
// deadline, degrades only the broken unit, and the canary (the bearer
// token) appears in no error.
func TestHostileServers(t *testing.T) {
	const badProject, badKeys = "bad", "p-one/serviceAccounts/bf-1234-runner@p-one.iam.gserviceaccount.com"
	cases := []struct {
		name, unit string
		h          http.Handler
		want       string
		failed     string // the unit whose error is expected, when below unit
	}{
		{"stall", badProject, hostile.Stall(), "no answer within 2s", ""},
		{"drip", badProject, hostile.Drip(100 * time.Millisecond), "no answer within 2s", ""},
		{"429 Retry-After 3600", badProject, hostile.RetryAfter(http.StatusTooManyRequests, 3600), "beyond the retry budget", ""},
		{"endless pagination, same page", badProject, endlessAccounts(false), "repeats items", "bad/serviceAccounts"},
		{"endless pagination, fresh pages", badProject, endlessAccounts(true), "after 100 pages", "bad/serviceAccounts"},
		{"50 MB answer", badProject, hostile.Huge(50 << 20), "larger than 16 MiB", ""},
		{"header-echoing 502", badProject, hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502", ""},
		{"stall on one account's keys", badKeys, hostile.Stall(), "no answer within 2s", ""},
		{"header-echoing 502 on one account's keys", badKeys, hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502", ""},
		{"50 MB keys answer", badKeys, hostile.Huge(50 << 20), "larger than 16 MiB", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The 50 MB cases hog the CPU; they run alone, before the
			// others run side by side.
			if !strings.Contains(tc.name, "50 MB") {
				t.Parallel()
			}
			f := estate(t)
			isBad := func(p string) bool {
				if tc.unit == badProject {
					return strings.HasPrefix(p, "/v3/projects/bad:") || strings.HasPrefix(p, "/v1/projects/bad/")
				}
				return strings.HasSuffix(p, runnerKeys)
			}
			bad := hostile.Count(tc.h)
			var seen sync.Once
			authorized := make(chan bool, 1)
			srv := hostile.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if isBad(r.URL.Path) {
					seen.Do(func() { authorized <- strings.Contains(r.Header.Get("Authorization"), hostile.Canary) })
					bad.ServeHTTP(w, r)
					return
				}
				f.ServeHTTP(w, r)
			}))
			// A 50 MB answer must hit the size cap, not the deadline, even
			// on a loaded machine under -race.
			timeout := 2 * time.Second
			if strings.Contains(tc.name, "50 MB") {
				timeout = 15 * time.Second
			}
			c := &Collector{
				Projects: []string{"bad", "p-one"}, ListServiceAccounts: true, Timeout: timeout,
				Endpoint: srv.URL, maxPages: 100,
				clientOptions: []option.ClientOption{option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: hostile.Canary}))},
			}
			if tc.unit != badProject {
				c.Projects = []string{"p-one"}
			}
			if err := c.Init(envAt(time.Now)); err != nil {
				t.Fatal(err)
			}
			sink := collectortest.CollectBroken(t, c, tc.unit, tc.want)
			if !<-authorized {
				t.Fatal("the hostile server never saw the canary token: the case proves nothing")
			}
			cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
			failed := cmp.Or(tc.failed, tc.unit)
			if cov.Answered(failed) {
				t.Errorf("%s counts as answered", failed)
			}
			if !cov.Answered("p-one") || sink.Artifact("gcpiam://p-one/bindings/roles/bigquery.dataEditor/serviceAccount:bf-1234-runner@p-one.iam.gserviceaccount.com") == nil {
				t.Errorf("p-one's bindings were not collected: %v %v", sink.Errors, uris(sink))
			}
			if sink.Artifact("gcpiam://p-one/serviceAccounts/replay@p-one.iam.gserviceaccount.com/keys/k-old") == nil {
				t.Errorf("another account's keys were not collected: %v", uris(sink))
			}
			if n := bad.N(); n > 110 {
				t.Errorf("%d requests to the hostile unit; want a bounded number", n)
			}
			if strings.HasPrefix(tc.name, "endless") {
				for _, e := range sink.Errors {
					if strings.Count(e.Error, "bad") != 1 {
						t.Errorf("error %q: want the project named once", e.Error)
					}
				}
			}
		})
	}
}
