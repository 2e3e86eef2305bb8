package collectors

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// recorder is an Observer that keeps what it heard.
type recorder struct {
	mu       sync.Mutex
	started  []string
	reads    map[string][2]int
	finished map[string]model.Coverage
}

func (r *recorder) Started(source, _ string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, source)
}

func (r *recorder) Read(source string, units, objects int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads[source] = [2]int{units, objects}
}

func (r *recorder) Finished(c model.Coverage, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, twice := r.finished[c.Source]; twice {
		panic("finished twice: " + c.Source)
	}
	r.finished[c.Source] = c
}

// Each source is heard start, read and finish once, its coverage as the
// estate holds it; one that outlives the run is heard finish, failed.
func TestRunTellsTheObserver(t *testing.T) {
	rec := &recorder{reads: map[string][2]int{}, finished: map[string]model.Coverage{}}
	release := make(chan struct{})
	defer close(release)
	instances := []Instance{
		{Name: "reads", Type: "x", Collector: &fakeCollector{run: func(s Sink) error {
			s.AddRead("p1", "tables", 3, 0)
			s.AddRead("p2", "tables", 4, 0)
			s.AddRead("p2", "views", 1, 0)
			return nil
		}}},
		{Name: "dead", Type: "x", Collector: &fakeCollector{run: func(Sink) error { return errors.New("refused") }}},
		{Name: "panics", Type: "x", Collector: &fakeCollector{run: func(Sink) error { panic("boom") }}},
		{Name: "hangs", Type: "x", Collector: &fakeCollector{run: func(Sink) error { <-release; return nil }}},
	}
	old := StopGrace
	StopGrace = 10 * time.Millisecond
	defer func() { StopGrace = old }()
	ctx, cancel := context.WithTimeout(WithObserver(context.Background(), rec), 200*time.Millisecond)
	defer cancel()
	est, _ := Run(ctx, instances, 0, time.Time{})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.started) != 4 || len(rec.finished) != 4 {
		t.Fatalf("started %v, finished %d of 4", rec.started, len(rec.finished))
	}
	if got := rec.reads["reads"]; got != [2]int{2, 8} {
		t.Errorf("reads heard %v, want 2 units, 8 objects", got)
	}
	for _, c := range est.Coverage {
		heard := rec.finished[c.Source]
		if heard.State() != c.State() || heard.Error != c.Error {
			t.Errorf("%s: heard %s %q, estate %s %q", c.Source, heard.State(), heard.Error, c.State(), c.Error)
		}
	}
	if !rec.finished["hangs"].Failed() || !rec.finished["panics"].Failed() {
		t.Errorf("hangs and panics must finish failed: %+v", rec.finished)
	}
}
