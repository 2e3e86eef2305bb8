package cloudasset

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

// endlessSearch answers every search with one result and a next page
// token, forever: the same each time, or fresh ones.
func endlessSearch(fresh bool) http.Handler {
	var mu sync.Mutex
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		name, next := "//pubsub.googleapis.com/projects/bad/topics/loop", "again"
		if fresh {
			name, next = fmt.Sprintf("//pubsub.googleapis.com/projects/bad/topics/loop-%d", i), fmt.Sprint(i)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"results":[{"name":%q,"assetType":"pubsub.googleapis.com/Topic","project":"projects/9"}],"nextPageToken":%q}`, name, next)
	})
}

// TestHostileServers puts a misbehaving server behind the real client for
// the searches of one scope (projects/bad), or for the follow-up search of
// one account's keys, while the fake answers the rest: each case ends
// within the test's deadline, degrades only the broken unit, and the
// canary (the bearer token) appears in no error.
func TestHostileServers(t *testing.T) {
	keysUnit := model.JoinScope("proj", "serviceAccounts", faultAccount)
	// A follow-up search asks about a batch of accounts at once: its
	// failure is recorded at each account's keys, all under the listing.
	accounts := model.JoinScope("proj", "serviceAccounts")
	cases := []struct {
		name, unit string
		h          http.Handler
		want       string
		failed     string // the unit whose error is expected, when below unit
	}{
		{"stall", "bad", hostile.Stall(), "no answer within 2s", ""},
		{"drip", "bad", hostile.Drip(100 * time.Millisecond), "no answer within 2s", ""},
		{"429 Retry-After 3600", "bad", hostile.RetryAfter(http.StatusTooManyRequests, 3600), "beyond the retry budget", ""},
		{"endless pagination, same page", "bad", endlessSearch(false), "repeats items", ""},
		{"endless pagination, fresh pages", "bad", endlessSearch(true), "after 100 pages", ""},
		{"50 MB answer", "bad", hostile.Huge(50 << 20), "larger than 16 MiB", ""},
		{"header-echoing 502", "bad", hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502", ""},
		{"stall on the keys follow-up", accounts, hostile.Stall(), "no answer within 2s", keysUnit},
		{"header-echoing 502 on the keys follow-up", accounts, hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502", keysUnit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The 50 MB case hogs the CPU; it runs alone, before the
			// others run side by side.
			if !strings.Contains(tc.name, "50 MB") {
				t.Parallel()
			}
			f := newFakeAsset(t, sampleEstate())
			isBad := func(r *http.Request) bool {
				if tc.failed == "" {
					return strings.HasPrefix(r.URL.Path, "/v1/projects/bad:")
				}
				q := r.URL.Query()
				return q.Get("assetTypes") == typeKey && strings.Contains(q.Get("query"), `"`+faultAccount+`"`)
			}
			bad := hostile.Count(tc.h)
			var seen sync.Once
			authorized := make(chan bool, 1)
			srv := hostile.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if isBad(r) {
					seen.Do(func() { authorized <- strings.Contains(r.Header.Get("Authorization"), hostile.Canary) })
					bad.ServeHTTP(w, r)
					return
				}
				f.ServeHTTP(w, r)
			}))
			timeout := 2 * time.Second
			if strings.Contains(tc.name, "50 MB") {
				timeout = 15 * time.Second
			}
			c := &Collector{Scopes: []string{"projects/bad", "projects/proj"}, Endpoint: srv.URL, Timeout: timeout, maxPages: 100,
				Principals:    []Principal{{Member: "serviceAccount:" + faultAccount, BackfillID: "BF-7001"}},
				clientOptions: []option.ClientOption{option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: hostile.Canary}))}}
			if err := c.Init(testEnv("")); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			sink := collectortest.CollectBroken(t, c, tc.unit, tc.want)
			if !<-authorized {
				t.Fatal("the hostile server never saw the canary token: the case proves nothing")
			}
			cov := model.Coverage{Status: model.CoverageDegraded, Errors: sink.Errors}
			if failed := cmp.Or(tc.failed, tc.unit); cov.Answered(failed) {
				t.Errorf("%s counts as answered", failed)
			}
			if !cov.Answered("proj/analytics") || sink.Artifact("bigquery://proj/analytics/bf_7001_tmp") == nil {
				t.Errorf("proj was not collected: %v %v", sink.Errors, uris(sink))
			}
			if n := bad.N(); n > 110 {
				t.Errorf("%d requests to the hostile unit; want a bounded number", n)
			}
			if strings.HasPrefix(tc.name, "endless") {
				for _, e := range sink.Errors {
					if strings.Count(e.Error, "projects/bad") != 1 {
						t.Errorf("error %q: want the scope named once", e.Error)
					}
				}
			}
		})
	}
}
