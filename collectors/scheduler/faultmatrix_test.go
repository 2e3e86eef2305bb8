package scheduler

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// matrixEstate is the fault matrix's estate: an enabled schedule of
// BF-7001 in each account (the caller's, and roleAccount's through its
// role), and one more in a second group of the caller's, so that breaking
// one group leaves another answering.
func matrixEstate(t *testing.T) *fakeAWS {
	f := newFakeAWS(t)
	s := f.at(baseAccount, mainRegion)
	s.add("default", schedule("bf_7001_replay", "rate(1 day)", replayMachine))
	s.add("replays", schedule("bf_7001_once", "at(2026-01-06T02:00:00)", replayMachine))
	f.at(roleAccount, mainRegion).add("default", schedule("bf_7001_replay", "cron(0 2 * * ? *)", replayMachine))
	return f
}

// front stands between the collector and the fake: down when closed, or
// answering with broken once set.
type front struct {
	mu     sync.Mutex
	to     *url.URL
	broken http.Handler
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	broken := f.broken
	f.mu.Unlock()
	if broken != nil {
		broken.ServeHTTP(w, r)
		return
	}
	httputil.NewSingleHostReverseProxy(f.to).ServeHTTP(w, r)
}

// Every unit the collector fails at: the whole source (AWS down, failing,
// stalled, or not EventBridge Scheduler), one account in one region
// (failing, stalled, not the service's answer, its role refused) and one
// schedule group.
func TestFaultMatrix(t *testing.T) {
	status := func(code int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
	}
	notScheduler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"error"}`))
	})
	matrixOn := func(t *testing.T, url string) collectors.Collector {
		return newOn(t, url, withAccounts, func(c *Collector) { c.Env.Source = "scheduler" })
	}
	source := func(breakIt http.Handler) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: "source", Scope: "", Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := matrixEstate(t)
			u, _ := url.Parse(f.URL)
			fr := &front{to: u}
			srv := hostile.Server(t, fr)
			return matrixOn(t, srv.URL), func() {
				if breakIt == nil {
					srv.Close()
					return
				}
				fr.mu.Lock()
				fr.broken = breakIt
				fr.mu.Unlock()
			}
		}}
	}
	place := func(account string, breakIt func(f *fakeAWS)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: "account/region", Scope: account + "/" + mainRegion, Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := matrixEstate(t)
			return matrixOn(t, f.URL), func() { breakIt(f) }
		}}
	}
	breaks := func(h http.Handler) func(f *fakeAWS) {
		return func(f *fakeAWS) { f.Break(baseAccount, mainRegion, h) }
	}
	faultmatrix.Run(t, "scheduler", []faultmatrix.Unit{
		source(nil), // AWS down
		source(status(http.StatusInternalServerError)),
		source(hostile.Stall()),
		source(notScheduler),
		place(baseAccount, breaks(status(http.StatusInternalServerError))),
		place(baseAccount, breaks(hostile.Stall())),
		place(baseAccount, breaks(notScheduler)),
		place(roleAccount, func(f *fakeAWS) { f.Refuse(roleAccount) }),
		{Kind: "schedule group", Scope: baseAccount + "/" + mainRegion + "/replays", Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := matrixEstate(t)
			return matrixOn(t, f.URL), func() {
				s := f.at(baseAccount, mainRegion)
				s.mu.Lock()
				s.failingTags["replays"] = true
				s.mu.Unlock()
			}
		}},
	})
}
