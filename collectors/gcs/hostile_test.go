package gcs

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"
)

// TestHostileServers puts a misbehaving server behind the real storage
// client for one bucket (or one prefix) while the fake answers the rest:
// each case ends within the deadline, degrades only the broken unit, and
// the canary (the bearer token) appears in no error.
func TestHostileServers(t *testing.T) {
	prefixUnit := PrefixScope("flink-state", "checkpoints/")
	cases := []struct {
		name string
		unit string
		h    http.Handler
		want string
	}{
		{"stall", "bad", hostile.Stall(), "no answer within 2s"},
		{"drip", "bad", hostile.Drip(100 * time.Millisecond), "no answer within 2s"},
		{"429 Retry-After 3600", "bad", hostile.RetryAfter(http.StatusTooManyRequests, 3600), "beyond the retry budget"},
		{"50 MB answer", "bad", hostile.Huge(50 << 20), "larger than 16 MiB"},
		{"header-echoing 502", "bad", hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502"},
		{"stall on one prefix", prefixUnit, hostile.Stall(), "no answer within 2s"},
		{"50 MB listing of one prefix", prefixUnit, hostile.Huge(50 << 20), "larger than 16 MiB"},
		{"header-echoing 502 on one prefix", prefixUnit, hostile.EchoHeaders(http.StatusBadGateway), "HTTP 502"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.name, "50 MB") {
				t.Parallel()
			}
			f := estate(t)
			bad := hostile.Count(tc.h)
			var seen sync.Once
			authorized := make(chan bool, 1)
			hit := func(r *http.Request) bool {
				if tc.unit == "bad" {
					return strings.Contains(r.URL.Path, "/b/bad")
				}
				return strings.HasSuffix(r.URL.Path, "/b/flink-state/o") && r.URL.Query().Get("prefix") == "checkpoints/"
			}
			srv := hostile.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if hit(r) {
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
			c := &Collector{
				Buckets:    append([]Bucket{{Name: "bad", Prefixes: []string{"checkpoints/"}}}, estateBuckets...),
				MaxObjects: 1000, Timeout: timeout, Endpoint: srv.URL,
				retry:         remote.RetryPolicy{Attempts: 3, Base: time.Millisecond, Max: 10 * time.Millisecond, Budget: time.Second},
				clientOptions: []option.ClientOption{option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: hostile.Canary}))},
			}
			if tc.unit != "bad" {
				c.Buckets = estateBuckets
			}
			if err := c.Init(collectors.Env{Source: "gcs", Selector: correlate.MustSelector()}); err != nil {
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
			if !cov.Answered(PrefixScope("flink-state", "savepoints/")) || sink.Artifact("gcs://gcs/flink-state/savepoints/bf_1234_final.tar") == nil {
				t.Errorf("a healthy unit was not collected: %v", sink.Errors)
			}
			if n := bad.N(); n > 10 {
				t.Errorf("%d requests to the hostile unit; want a bounded number", n)
			}
		})
	}
}
