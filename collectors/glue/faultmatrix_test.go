package glue

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

// matrixEstate is the fault matrix's estate: a scratch table of BF-7001
// in each account (the caller's, and roleAccount's through its role), and
// one more in a second database of the caller's, so that breaking one
// database leaves another answering; in the caller's Lake Formation, the
// replay role's grant on the scratch table.
func matrixEstate(t *testing.T) *fakeGlue {
	f := newFakeGlue(t)
	c := f.catalog(baseAccount, mainRegion)
	c.addDatabase(map[string]any{"Name": "analytics"}, table("refunds_bf_7001_tmp", "s3://acme-athena/tmp/bf-7001/", nil))
	c.addDatabase(map[string]any{"Name": "scratch"}, table("bf_7001_stage", "", nil))
	f.catalog(roleAccount, mainRegion).addDatabase(map[string]any{"Name": "finance"}, table("bf_7001_refunds", "", nil))
	f.lake(baseAccount, mainRegion).grant("arn:aws:iam::111111111111:role/bf-7001-replay", onTbl("analytics", "refunds_bf_7001_tmp"), []string{"INSERT", "SELECT"})
	return f
}

// front stands between the collector and the fake: down when closed,
// or answering with broken once set.
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
// stalled, or not Glue), one account in one region (failing, stalled, not
// Glue's answer, its role refused), one database, and one account's Lake
// Formation in a region (its listing failing, stalled, not Lake
// Formation's answer, the role no longer an administrator there).
func TestFaultMatrix(t *testing.T) {
	status := func(code int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
	}
	notGlue := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_, _ = w.Write([]byte(`{"status":"error"}`))
	})
	matrixOn := func(t *testing.T, f *fakeGlue, url string) collectors.Collector {
		return newOn(t, url, withAccounts, func(c *Collector) { c.Env.Source = "glue" })
	}
	source := func(breakIt http.Handler) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: "source", Scope: "", Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := matrixEstate(t)
			u, _ := url.Parse(f.URL)
			fr := &front{to: u}
			srv := hostile.Server(t, fr)
			return matrixOn(t, f, srv.URL), func() {
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
	place := func(account string, breakIt func(f *fakeGlue)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: "account/region", Scope: account + "/" + mainRegion, Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := matrixEstate(t)
			return matrixOn(t, f, f.URL), func() { breakIt(f) }
		}}
	}
	breaks := func(h http.Handler) func(f *fakeGlue) {
		return func(f *fakeGlue) { f.Break(baseAccount, mainRegion, h) }
	}
	lake := func(breakIt func(f *fakeGlue)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: "lakeformation", Scope: lfScope, Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := matrixEstate(t)
			return matrixOn(t, f, f.URL), func() { breakIt(f) }
		}}
	}
	breaksLake := func(h http.Handler) func(f *fakeGlue) {
		return func(f *fakeGlue) { f.BreakService(baseAccount, mainRegion, "lakeformation", h) }
	}
	faultmatrix.Run(t, "glue", []faultmatrix.Unit{
		source(nil), // AWS down
		source(status(http.StatusInternalServerError)),
		source(hostile.Stall()),
		source(notGlue),
		place(baseAccount, breaks(status(http.StatusInternalServerError))),
		place(baseAccount, breaks(hostile.Stall())),
		place(baseAccount, breaks(notGlue)),
		place(roleAccount, func(f *fakeGlue) { f.Refuse(roleAccount) }),
		{Kind: "database", Scope: baseAccount + "/" + mainRegion + "/analytics", Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := matrixEstate(t)
			return matrixOn(t, f, f.URL), func() {
				c := f.catalog(baseAccount, mainRegion)
				c.mu.Lock()
				c.failing["analytics"] = true
				c.mu.Unlock()
			}
		}},
		lake(func(f *fakeGlue) {
			l := f.lake(baseAccount, mainRegion)
			l.mu.Lock()
			l.failing = true
			l.mu.Unlock()
		}),
		lake(breaksLake(hostile.Stall())),
		lake(breaksLake(notGlue)),
		lake(func(f *fakeGlue) {
			l := f.lake(baseAccount, mainRegion)
			l.mu.Lock()
			l.readOnly = nil
			l.mu.Unlock()
		}),
	})
}
