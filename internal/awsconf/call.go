package awsconf

import (
	"context"
	"errors"
	"fmt"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// MaxPages bounds one listing: a server that keeps answering with a next
// token (a loop, a huge account) ends the listing with an error, never
// an audit that does not finish.
const MaxPages = 1000

// Call runs one SDK call under its own deadline (timeout; the SDK's own
// bounded retries happen within it). The error is summarised (see
// APIError); a call that ran out its time says so; when ctx itself ends,
// its error is returned.
func Call[T any](ctx context.Context, timeout time.Duration, call func(ctx context.Context) (T, error)) (T, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := call(cctx)
	switch {
	case err == nil:
		return v, nil
	case ctx.Err() != nil:
		return v, ctx.Err()
	case cctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return v, fmt.Errorf("no answer within %s (the per-call timeout)", timeout)
	}
	return v, Summarize(err)
}

// Pages reads a listing page by page (more and next are an SDK
// paginator's HasMorePages and NextPage), each page a Call under
// timeout, handing each to each. It stops at the first error, and after
// MaxPages pages with an error saying the listing was cut short.
func Pages[P any](ctx context.Context, timeout time.Duration, more func() bool, next func(context.Context) (P, error), each func(P) error) error {
	for n := 0; more(); n++ {
		if n == MaxPages {
			return fmt.Errorf("more than %d pages: the listing was cut short", MaxPages)
		}
		page, err := Call(ctx, timeout, next)
		if err != nil {
			return err
		}
		if err := each(page); err != nil {
			return err
		}
	}
	return nil
}

// APIError is an SDK error summarised: the operation, AWS's error code
// and message, and the HTTP status. Its text holds nothing of the
// request (no signature, no credential); Unwrap gives the SDK's error,
// so errors.As still finds its typed errors (iam's NoSuchEntityException).
type APIError struct {
	Operation string
	Code      string
	Message   string
	Status    int
	err       error
}

func (e *APIError) Error() string {
	s := e.Operation + ": "
	switch {
	case e.Code == "":
		s += e.Message
	case e.Message == "":
		s += e.Code
	default:
		s += e.Code + ": " + e.Message
	}
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	return s
}

func (e *APIError) Unwrap() error { return e.err }

// notAWS is the message of an HTTP answer the SDK could not read as
// AWS's (an HTML error page, a proxy's, a truncated body): what it said
// is left out, as it may echo the request.
const notAWS = "an answer that is not AWS's (the SDK could not read it)"

// Summarize turns an SDK error into an *APIError when it is an answer
// from AWS, or an HTTP answer that is not AWS's; other errors (a network
// failure, an answer over its cap, credentials that could not be
// resolved) are returned as they are.
func Summarize(err error) error {
	var ae smithy.APIError
	var re *awshttp.ResponseError
	if err == nil || remote.IsTooLarge(err) {
		return err
	}
	var out *APIError
	switch {
	case errors.As(err, &ae):
		out = &APIError{Code: ae.ErrorCode(), Message: ae.ErrorMessage(), err: err}
	case errors.As(err, &re):
		out = &APIError{Message: notAWS, err: err}
	default:
		return err
	}
	// The innermost operation is the one AWS refused: a role that could
	// not be assumed fails IAM's ListRoles inside STS's AssumeRole.
	for e := err; e != nil; e = errors.Unwrap(e) {
		if oe, ok := e.(*smithy.OperationError); ok {
			out.Operation = oe.Service() + " " + oe.Operation()
		}
	}
	if errors.As(err, &re) {
		out.Status = re.HTTPStatusCode()
	}
	return out
}

// Code is AWS's error code of err ("NoSuchEntity", "AccessDenied"), or
// "" when err is not an answer from AWS.
func Code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}
