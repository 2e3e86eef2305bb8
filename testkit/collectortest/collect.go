package collectortest

import (
	"context"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
)

// Collect runs c into a fresh sink and fails the test if it has not
// returned within 20s: a collector that hangs on a fake server fails its
// test instead of the whole run's timeout.
func Collect(t *testing.T, c collectors.Collector) (*collectors.TestSink, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sink := collectors.NewTestSink()
	err := collectors.Collect(ctx, c, sink)
	if ctx.Err() != nil {
		t.Fatal("Collect did not finish within 20s")
	}
	return sink, err
}
