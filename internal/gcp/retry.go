// Package gcp holds what the Google Cloud collectors share: project id
// checks, one way to make a call (a deadline per call, bounded retries,
// errors summarised to status and message), and the HTTP client of the
// generated REST clients (google.golang.org/api), which do not retry by
// themselves. It is the Google-specific part of talking to a server:
// reading googleapi and gRPC errors; retrying, capping answers, paging
// (remote.Pager) and masking are package remote's and redact's.
package gcp

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"google.golang.org/api/googleapi"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Retryable marks what is worth another try under remote.Retry: REST
// quota (429) and server (5xx) answers, honouring Retry-After (read
// against the answer's own Date, see remote.AnswerRetryAfter) or the
// RetryInfo delay in the body's details, whichever is longer; gRPC
// RESOURCE_EXHAUSTED, UNAVAILABLE, INTERNAL, ABORTED and UNKNOWN,
// honouring the RetryInfo delay Google APIs attach (gRPC's Retry-After);
// and network failures. remote.Retry refuses a delay beyond its
// budget. Other errors, and an answer cut off at its cap (asking again
// gets the same), are returned as they are.
func Retryable(err error) error {
	if err == nil {
		return nil
	}
	if remote.IsTooLarge(err) {
		return err
	}
	if ae := restAnswer(err); ae != nil && ae.Code != 0 {
		if ae.Code == http.StatusTooManyRequests || ae.Code >= 500 {
			return remote.Retryable(err, max(remote.AnswerRetryAfter(ae.Header), ae.RetryDelay))
		}
		return err
	}
	if st := grpcStatus(err); st != nil {
		if isClientSizeLimit(st) {
			return err // the same answer would be refused again
		}
		switch st.Code() {
		case codes.ResourceExhausted, codes.Unavailable, codes.Internal, codes.Aborted, codes.Unknown:
			return remote.Retryable(err, retryDelay(st))
		}
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return remote.Retryable(err, 0)
	}
	return err
}

// restAnswer is the REST error answer err holds, summarised; nil when it
// holds none.
func restAnswer(err error) *APIError {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return summarizeREST(ge)
	}
	return nil
}

// grpcStatus returns the gRPC status err carries, or nil.
func grpcStatus(err error) *status.Status {
	var se interface{ GRPCStatus() *status.Status }
	if errors.As(err, &se) {
		if st := se.GRPCStatus(); st != nil && st.Code() != codes.OK {
			return st
		}
	}
	return nil
}

// retryDelay reads the RetryInfo detail; zero when there is none.
func retryDelay(st *status.Status) time.Duration {
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay() != nil {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

// isClientSizeLimit reports the gRPC client refusing an answer over its
// receive limit. It comes as RESOURCE_EXHAUSTED, like a server's quota
// answer, but is the client's own verdict on a message it already got.
func isClientSizeLimit(st *status.Status) bool {
	return st.Code() == codes.ResourceExhausted && strings.Contains(st.Message(), "received message larger than max")
}
