package audit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/bench"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/rules"
)

// A large estate's loading garbage is collected after correlation, before
// the rules run, and the rules' once they are done, before the report is
// assembled; a small estate's is left to the runtime.
func TestEvaluateReleasesTheLoadingGarbageOfLargeEstates(t *testing.T) {
	oldFrom, oldRelease := releaseFrom, release
	t.Cleanup(func() { releaseFrom, release = oldFrom, oldRelease })
	calls := 0
	release = func() { calls++ }
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	est := bench.Estate(200, 10)
	for _, c := range []struct{ from, calls int }{{200, 2}, {201, 0}} {
		releaseFrom, calls = c.from, 0
		Evaluate(est, correlate.MustSelector(), eng, bench.Now)
		if calls != c.calls {
			t.Errorf("estate of 200 artifacts, release from %d: released %d times, want %d", c.from, calls, c.calls)
		}
	}
}

// An audit of a large estate runs with the collector paced tighter, and
// the pace is put back when it returns; a pace set through GOGC stays.
func TestRunPacesTheCollectorForLargeEstates(t *testing.T) {
	oldFrom, oldSet := releaseFrom, setGCPercent
	t.Cleanup(func() { releaseFrom, setGCPercent = oldFrom, oldSet })
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		from, gogc int
		want       string
	}{
		{"large", 200, 100, "25 100"},
		{"small", 201, 100, ""},
		{"GOGC set", 200, 50, "25 50"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pace, calls := c.gogc, ""
			setGCPercent = func(p int) int {
				calls += fmt.Sprint(" ", p)
				old := pace
				pace = p
				return old
			}
			releaseFrom = c.from
			Run(t.Context(), t.Context(), Plan{Estate: bench.Estate(200, 10), Selector: correlate.MustSelector(), Engine: eng, Now: bench.Now})
			if strings.TrimSpace(calls) != c.want || pace != c.gogc {
				t.Errorf("GOGC %d, estate of 200 artifacts, paced from %d: set %q, left at %d; want %q, left at %d", c.gogc, c.from, calls, pace, c.want, c.gogc)
			}
		})
	}
}

// LetGo hands back the report and, for a large estate, collects what the
// index held before the reports are written.
func TestLetGoReleasesTheIndexOfLargeEstates(t *testing.T) {
	oldFrom, oldRelease := releaseFrom, release
	t.Cleanup(func() { releaseFrom, release = oldFrom, oldRelease })
	calls := 0
	release = func() { calls++ }
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	est := bench.Estate(200, 10)
	for _, c := range []struct{ from, calls int }{{200, 1}, {201, 0}} {
		releaseFrom = c.from
		a := Evaluate(est, correlate.MustSelector(), eng, bench.Now)
		calls = 0
		r := a.LetGo()
		if calls != c.calls || r != a.Report || a.Index() != nil {
			t.Errorf("release from %d: released %d times (want %d), report handed back %v, index kept %v", c.from, calls, c.calls, r == a.Report, a.Index() != nil)
		}
	}
}
