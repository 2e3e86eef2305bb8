package airflow

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// listing is a server-side listing of n DAGs, paged by limit/offset,
// that counts the pages read at once.
type listing struct {
	mu               sync.Mutex
	n, cap           int
	grow             int // entries added after the first page
	calls, in, maxIn int
	delay            time.Duration
}

func (s *listing) fetch(_ context.Context, o, l int) ([]dagJSON, int, error) {
	s.mu.Lock()
	s.calls++
	s.in++
	s.maxIn = max(s.maxIn, s.in)
	if s.calls == 2 {
		s.n += s.grow
	}
	n := s.n
	s.mu.Unlock()
	time.Sleep(s.delay)
	var out []dagJSON
	for i := o; i < min(o+min(l, s.cap), n); i++ {
		out = append(out, dagJSON{DagID: fmt.Sprintf("dag_%05d", i)})
	}
	s.mu.Lock()
	s.in--
	s.mu.Unlock()
	return out, n, nil
}

// Pages are read par at a time once the first page gives the total, and
// the listing comes back whole and in order.
func TestPageAllConcurrent(t *testing.T) {
	s := &listing{n: 1234, cap: 10, delay: 5 * time.Millisecond}
	var projected int
	got, err := pageAll(context.Background(), pageSpec[dagJSON]{what: "GET /dags", limit: 100, maxPages: 1000, par: 8,
		key: dagKey, fetch: s.fetch, first: func(p int) { projected = p }})
	if err != nil || len(got) != 1234 {
		t.Fatalf("read %d, err %v", len(got), err)
	}
	if !slices.IsSortedFunc(got, func(a, b dagJSON) int { return strings.Compare(a.DagID, b.DagID) }) {
		t.Error("the listing is not in offset order")
	}
	if s.calls != 124 || projected != 124 {
		t.Errorf("%d pages read, %d projected; want 124 (the server's 10 a page)", s.calls, projected)
	}
	if s.maxIn < 4 || s.maxIn > 8 {
		t.Errorf("%d pages at once, want up to par (8)", s.maxIn)
	}
}

// A listing that grows while read has its new tail read and is noted. One
// that shrinks is an error at its unit: an entry may have moved onto a
// page already read, and nothing it held may be concluded gone. Neither
// loops.
func TestPageAllChangingListing(t *testing.T) {
	for _, grow := range []int{35, -35} {
		t.Run(fmt.Sprint("grows by ", grow), func(t *testing.T) {
			s := &listing{n: 100, cap: 10, grow: grow}
			var notes []string
			got, err := pageAll(context.Background(), pageSpec[dagJSON]{what: "GET /dags", limit: 10, maxPages: 100, par: 4,
				key: dagKey, fetch: s.fetch, note: func(n string) { notes = append(notes, n) }})
			if grow < 0 {
				if err == nil || !strings.Contains(err.Error(), "entries went away while the listing was read") || got != nil {
					t.Errorf("a shrinking listing: read %d, err %v; want an error and nothing", len(got), err)
				}
				return
			}
			if err != nil || len(got) != 100+grow {
				t.Errorf("read %d, want %d (err %v)", len(got), 100+grow, err)
			}
			if len(notes) != 1 || !strings.Contains(notes[0], "changed while it was read (100 entries at first") {
				t.Errorf("notes %q", notes)
			}
		})
	}
}

// Only the kept items are held, the rest dropped as their page arrives.
func TestPageAllKeepsOnly(t *testing.T) {
	s := &listing{n: 5000, cap: 100}
	got, err := pageAll(context.Background(), pageSpec[dagJSON]{what: "GET /dags", limit: 100, maxPages: 100, par: 4,
		key: dagKey, fetch: s.fetch, keep: func(d dagJSON) bool { return strings.HasSuffix(d.DagID, "00") }})
	if err != nil || len(got) != 50 {
		t.Errorf("kept %d, want the 50 matching; err %v", len(got), err)
	}
}

// slowTransport answers every call after a delay, like a distant server.
type slowTransport struct {
	base  http.RoundTripper
	delay time.Duration
}

func (s slowTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(s.delay)
	return s.base.RoundTrip(r)
}

// A collection that cannot fit its budget says so as soon as the listings
// show it, in the source's notes, and still ends within the budget.
func TestBudgetProjectionWarns(t *testing.T) {
	f := newFakeAirflow(t, "2")
	f.maxPage = 100
	for i := range 300 {
		f.store.DAGs = append(f.store.DAGs, json.RawMessage(fmt.Sprintf(
			`{"dag_id":"sched_%03d","is_paused":false,"timetable_summary":"@daily","tags":[]}`, i)))
	}
	c, _ := newCollectorWith(t, f, "2", func(c *Airflow) {
		c.HTTPClient = &http.Client{Transport: slowTransport{http.DefaultTransport, 20 * time.Millisecond}}
		c.Concurrency, c.Budget = 2, 1500*time.Millisecond
	})
	start := time.Now()
	collectWithin(t, c, 20*time.Second)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("collection took %s, budget 1.5s", took)
	}
	notes := c.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "past the budget of 1.5s") || !strings.Contains(notes[0], "per-DAG calls") {
		t.Errorf("notes %q, want one budget warning", notes)
	}

	// The same estate with room: no note.
	f2 := newFakeAirflow(t, "2")
	c2, _ := newCollector(t, f2, "2")
	collect(t, c2)
	if n := c2.Notes(); len(n) != 0 {
		t.Errorf("notes without cause: %q", n)
	}
}
