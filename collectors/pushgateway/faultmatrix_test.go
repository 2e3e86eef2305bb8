package pushgateway

import (
	"net/http"
	"os"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// saved serves the answer a real Pushgateway gave (testdata/README.md):
// two groups tied to BF-7001, one of no backfill. broken, once set,
// answers instead.
type saved struct {
	mu     sync.Mutex
	answer []byte
	broken http.Handler
}

func newSaved(t *testing.T) *saved {
	t.Helper()
	b, err := os.ReadFile("testdata/api_v1_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	return &saved{answer: b}
}

func (s *saved) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	broken := s.broken
	s.mu.Unlock()
	if broken != nil {
		broken.ServeHTTP(w, r)
		return
	}
	if r.URL.Path != "/api/v1/metrics" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.answer)
}

func (s *saved) breakWith(h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.broken = h
}

// The gateway is one unit: down, failing, slow or answering what no
// Pushgateway answers, it ticks, closes and resolves nothing.
func TestFaultMatrix(t *testing.T) {
	unit := func(breakIt http.Handler) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: "source", Scope: "", Setup: func(t *testing.T) (collectors.Collector, func()) {
			s := newSaved(t)
			srv := hostile.Server(t, s)
			c := collectorOn(t, srv.URL, "pushgateway") // its timeout is shorter than the stall
			return c, func() {
				if breakIt == nil {
					srv.Close()
				}
				s.breakWith(breakIt)
			}
		}}
	}
	faultmatrix.Run(t, "pushgateway", []faultmatrix.Unit{
		unit(nil), // server down
		unit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })),
		unit(hostile.Stall()),
		unit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"status":"error"}`)) })),
	})
}
