package collectortest

import (
	"context"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
)

// Collect runs c into a fresh sink and fails the test if it has not
// returned within collectLimit (20s; 90s under the race detector): a
// collector that hangs on a fake server fails its test instead of the
// whole run's timeout. It guards liveness; the collector's own call
// timeouts are what its tests hold it to.
func Collect(t *testing.T, c collectors.Collector) (*collectors.TestSink, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(collectLimit))
	defer cancel()
	sink := collectors.NewTestSink()
	err := collectors.Collect(ctx, c, sink)
	if ctx.Err() != nil {
		t.Fatalf("Collect did not finish within %s", time.Duration(collectLimit))
	}
	return sink, err
}
