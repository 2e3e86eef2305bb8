package gcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Call runs one API call under its own deadline (timeout, through the
// call's context: Google's clients honour it for the request and for
// reading the answer), retried under p as Retryable classifies it. A call
// that ran out its timeout is not tried again: a server that stalls once
// would stall the audit once per retry. The error returned is summarised
// (status, code and message only, see Summarize); when ctx itself ends,
// its error is returned.
func Call[T any](ctx context.Context, p remote.RetryPolicy, timeout time.Duration, call func(ctx context.Context) (T, error)) (T, error) {
	var out T
	err := remote.Retry(ctx, p, func() error {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		v, err := call(cctx)
		switch {
		case err == nil:
			out = v
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case cctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded:
			// gRPC may report the deadline (sent to the server with the
			// call) a moment before the context's own timer fires.
			return fmt.Errorf("no answer within %s (the per-call timeout)", timeout)
		}
		return Retryable(Summarize(err))
	})
	return out, err
}
