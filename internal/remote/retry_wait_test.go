package remote

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A run cancelled while Retry waits ends the call with an error that is
// still the run's (errors.Is context.Canceled), so callers tell "the run
// ended" from "the server failed", and that names the last failure.
func TestRetryCancelledWhileWaitingIsTheRunsError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := RetryPolicy{Attempts: 3, Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}}
	err := Retry(ctx, p, func() error { return Retryable(errors.New("HTTP 502"), 0) })
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "HTTP 502") {
		t.Errorf("Retry = %v, want context.Canceled naming HTTP 502", err)
	}
}
