package audit

import (
	"testing"

	"github.com/bfaudit/bfaudit/bench"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/rules"
)

// A large estate's loading garbage is collected once, after correlation
// and before the rules run; a small estate's is left to the runtime.
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
	for _, c := range []struct{ from, calls int }{{200, 1}, {201, 0}} {
		releaseFrom, calls = c.from, 0
		Evaluate(est, correlate.MustSelector(), eng, bench.Now)
		if calls != c.calls {
			t.Errorf("estate of 200 artifacts, release from %d: released %d times, want %d", c.from, calls, c.calls)
		}
	}
}
