package bigquery

import (
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

// endlessDatasets answers datasets.list with one dataset and a next page
// token, forever: the same token and dataset each time, or fresh ones.
func endlessDatasets(fresh bool) http.Handler {
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++ // handlers of one listing run one at a time
		id, next := "bf_1_loop", "again"
		if fresh {
			id, next = fmt.Sprintf("bf_1_loop_%d", n), fmt.Sprint(n)
		}
		fmt.Fprintf(w, `{"kind":"bigquery#datasetList","etag":"e","datasets":[{"kind":"bigquery#dataset","id":"bad:%s","datasetReference":{"projectId":"bad","datasetId":%q}}],"nextPageToken":%q}`, id, id, next)
	})
}

// TestHostileServers puts a misbehaving server behind the real client for
// one project (or one dataset) while the fake answers the rest: each case
// ends within the test's deadline, degrades only the broken unit, and the
// canary (the bearer token) appears in no error.
func TestHostileServers(t *testing.T) {
	cases := []struct {
		name string
		// unit is the scope whose paths the hostile handler answers.
		unit string
		h    http.Handler
		want string // in the unit's error
	}{
		{"stall", "bad", hostile.Stall(), "no answer within 2s"},
		{"drip", "bad", hostile.Drip(100 * time.Millisecond), "no answer within 2s"},
		{"429 Retry-After 3600", "bad", hostile.RetryAfter(http.StatusTooManyRequests, 3600), "beyond the retry budget"},
		{"endless pagination, same page", "bad", endlessDatasets(false), "repeats items"},
		{"endless pagination, fresh pages", "bad", endlessDatasets(true), "after 100 pages"},
		{"50 MB answer", "bad", hostile.Huge(50 << 20), "larger than 16 MiB"},
		{"header-echoing 502", "bad", hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502"},
		{"stall on one dataset", "p-one/analytics", hostile.Stall(), "no answer within 2s"},
		{"header-echoing 502 on one dataset", "p-one/analytics", hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The 50 MB cases hog the CPU; they run alone, before the
			// others run side by side.
			if !strings.Contains(tc.name, "50 MB") {
				t.Parallel()
			}
			f := estate(t)
			prefix := "/bigquery/v2/projects/" + strings.Replace(tc.unit, "/", "/datasets/", 1)
			bad := hostile.Count(tc.h)
			var seen sync.Once
			authorized := make(chan bool, 1)
			srv := hostile.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == prefix || strings.HasPrefix(r.URL.Path, prefix+"/") || strings.HasPrefix(r.URL.Path, prefix+"?") {
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
				Projects: []string{"bad", "p-one"}, FetchTableMetadata: true, DatasetACLs: ACLsAll,
				OwnerLabel: "owner", Timeout: timeout, Endpoint: srv.URL, maxPages: 100,
				clientOptions: []option.ClientOption{option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: hostile.Canary}))},
			}
			if tc.unit != "bad" {
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
			if cov.Answered(tc.unit) {
				t.Errorf("%s counts as answered", tc.unit)
			}
			if !cov.Answered("p-one/bf_1234_scratch") || sink.Artifact("bigquery://p-one/bf_1234_scratch/t1") == nil {
				t.Errorf("a healthy unit was not collected: %v %v", sink.Errors, uris(sink))
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
