package awsconf

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/bfaudit/bfaudit/internal/redact"
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
		return v, fmt.Errorf("no answer within %s (the per-call deadline)", timeout)
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

// Summarize turns an SDK error into an *APIError when it is an answer
// from AWS, and into a *RequestError naming the operation and the request
// when the request got no answer to read (a network failure, an answer
// over its cap); other errors (credentials that could not be resolved)
// are returned as they are.
func Summarize(err error) error {
	var ae smithy.APIError
	if err == nil {
		return nil
	}
	if remote.IsTooLarge(err) || !errors.As(err, &ae) {
		return unanswered(err)
	}
	out := &APIError{Operation: operation(err), Code: ae.ErrorCode(), Message: ae.ErrorMessage(), err: err}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		out.Status = re.HTTPStatusCode()
	}
	return out
}

// operation is the innermost operation of err: the one AWS refused or
// that failed (a role that could not be assumed fails IAM's ListRoles
// inside STS's AssumeRole).
func operation(err error) string {
	op := ""
	for e := err; e != nil; e = errors.Unwrap(e) {
		if oe, ok := e.(*smithy.OperationError); ok {
			op = oe.Service() + " " + oe.Operation()
		}
	}
	return op
}

// RequestError is a request that got no answer to read: the operation,
// the method and address, the HTTP status of an answer that could not be
// read (0: none came), and why. Unwrap gives the cause, so the SDK's
// retryer and remote.IsTooLarge still see it.
type RequestError struct {
	Operation string
	Request   string // "GET https://host/path": no query, no credentials
	Status    int
	Err       error
}

func (e *RequestError) Error() string {
	s := e.Request + ": " + e.Err.Error()
	if e.Operation != "" {
		s = e.Operation + ": " + s
	}
	if e.Status != 0 && (e.Status < 200 || e.Status > 299) {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	return s
}

// requestOf names a request by its method and address: the query is left
// out (the operation says what was asked, and a query may hold a
// presigned signature).
func requestOf(r *http.Request) string {
	u := *r.URL
	u.RawQuery, u.ForceQuery = "", false
	return r.Method + " " + redact.URLOf(&u)
}

func (e *RequestError) Unwrap() error { return e.Err }

// RetryableError tells the SDK's retryer (which asks it before anything
// else) that an answer over the cap is not worth asking again: it would
// be as large. Any other request without an answer is retried, as the
// SDK retries a request it could not send.
func (e *RequestError) RetryableError() bool { return !remote.IsTooLarge(e.Err) }

// unanswered summarises an error of a request without an answer from AWS
// to its operation, the request and the cause, dropping the SDK's
// wrapping (status 200 of an answer not read, empty request ids).
func unanswered(err error) error {
	var rq *RequestError
	if errors.As(err, &rq) { // the transport failed: loggedClient named the request
		return &RequestError{Operation: operation(err), Request: rq.Request, Err: rq.Err}
	}
	var ns notSaved
	if errors.As(err, &ns) { // an export without the answer
		return fmt.Errorf("%s: %w", operation(err), ns.error)
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		// An answer the SDK could not read as AWS's (an HTML error page,
		// a proxy's, a truncated body): what it said is left out, as it
		// may echo the request.
		return &APIError{Operation: operation(err), Message: notAWS, Status: re.HTTPStatusCode(), err: err}
	}
	return err
}

// notAWS is the message of an HTTP answer the SDK could not read as AWS's.
const notAWS = "an answer that is not AWS's (the SDK could not read it)"

// Code is AWS's error code of err ("NoSuchEntity", "AccessDenied"), or
// "" when err is not an answer from AWS.
func Code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// Listing says how List reads one listing's pages.
type Listing[P, T any] struct {
	// Items are a page's entries.
	Items func(P) []T
	// Key names an entry: each is kept once, in the listing's order. An
	// entry Key names "" is refused when Service is set, kept otherwise.
	Key func(T) string
	// Service, when set, is the service every answer must be from (Glue,
	// EventBridge Scheduler): its answers always hold the list, even an
	// empty one, and name every entry, so a page without its list or an
	// entry without a name is not its answer.
	Service string
}

// List reads every page of a listing (Pages: more and next are an SDK
// paginator's) and returns its entries, each once.
func List[P, T any](ctx context.Context, timeout time.Duration, more func() bool, next func(context.Context) (P, error), l Listing[P, T]) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	err := Pages(ctx, timeout, more, next, func(page P) error {
		items := l.Items(page)
		if items == nil && l.Service != "" {
			return fmt.Errorf("the answer holds no list (not an answer of %s)", l.Service)
		}
		for _, it := range items {
			k := l.Key(it)
			switch {
			case k == "" && l.Service != "":
				return fmt.Errorf("an entry without a name (not an answer of %s)", l.Service)
			case k != "" && seen[k]:
				continue
			}
			seen[k] = true
			out = append(out, it)
		}
		return nil
	})
	return out, err
}
