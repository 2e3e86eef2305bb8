package cloudasset

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// call runs one page of a search under its own deadline, retried under p.
// It is gcp.Call but for the delay: the REST transport brings a quota
// error's google.rpc.RetryInfo in the JSON body's details, which
// gcp.Retryable (reading only Retry-After for REST answers) would not
// see. A call that ran out its timeout is not tried again.
func call[T any](ctx context.Context, p remote.RetryPolicy, timeout time.Duration, fn func(ctx context.Context) (T, error)) (T, error) {
	var out T
	err := remote.Retry(ctx, p, func() error {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		v, err := fn(cctx)
		switch {
		case err == nil:
			out = v
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case cctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded || isTimeout(err):
			return fmt.Errorf("no answer within %s (the per-call timeout)", timeout)
		}
		return retryable(err)
	})
	return out, err
}

// isTimeout reports the HTTP client's own timeout (see newClient).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// retryable summarises err (status, code and message only) and marks it
// for another try as gcp.Retryable does, waiting at least the RetryInfo
// delay the API attached.
func retryable(err error) error {
	delay := retryInfoDelay(err)
	out := gcp.Retryable(gcp.Summarize(err))
	var re *remote.RetryableError
	if errors.As(out, &re) && delay > re.After {
		re.After = delay
	}
	return out
}

// retryInfoDelay reads google.rpc.RetryInfo from a REST or gRPC error;
// zero when there is none.
func retryInfoDelay(err error) time.Duration {
	// The client hands back an *apierror.APIError already; parsing that
	// again would read the gRPC status it made up, which has no details.
	var ae *apierror.APIError
	if !errors.As(err, &ae) {
		var ok bool
		if ae, ok = apierror.FromError(err); !ok {
			return 0
		}
	}
	if d := ae.Details().RetryInfo.GetRetryDelay(); d != nil && d.IsValid() && d.AsDuration() > 0 {
		return d.AsDuration()
	}
	return 0
}
