package gcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/status"
)

// APIError is a Google API answer that was not a success, reduced to what
// may leave the process: the HTTP status, the API's status or reason
// code, and its message, capped and scrubbed. The raw body (an HTML page
// from a proxy, request headers echoed back) is never kept.
type APIError struct {
	Code    int    // HTTP status
	Status  string // the API's status (PERMISSION_DENIED) or first reason (accessDenied)
	Message string
	// Header is kept for Retry-After; it is never printed.
	Header http.Header
	// RetryDelay is the google.rpc.RetryInfo delay the body's details
	// asked for, 0 when none; it is never printed.
	RetryDelay time.Duration
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("HTTP %d", e.Code)
	if e.Status != "" {
		s += " " + e.Status
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Code returns the HTTP status of a Google API error, or 0.
func Code(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Code
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

// IsNotFound reports a 404 answer.
func IsNotFound(err error) bool { return Code(err) == http.StatusNotFound }

// Summarize turns an error from a Google client into text safe to report:
// a REST answer becomes an *APIError (status, code, message), a gRPC
// status keeps its code and a capped message, and a transport error's URL
// is redacted (redact.URL). Everything else is returned with its text
// made one masked line (redact.ErrorLine). nil stays nil.
func Summarize(err error) error {
	if err == nil {
		return nil
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return summarizeREST(ge)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: redact.URL(ue.URL), Err: redact.ErrorLine(ue.Err, remote.SummaryLimit)}
	}
	if st := grpcStatus(err); st != nil {
		return &RPCError{Status: st, Message: redact.Line(st.Message(), remote.SummaryLimit)}
	}
	return redact.ErrorLine(err, remote.SummaryLimit)
}

func summarizeREST(ge *googleapi.Error) *APIError {
	ae := &APIError{Code: ge.Code, Message: ge.Message, Header: ge.Header, RetryDelay: restRetryDelay(ge)}
	if len(ge.Errors) > 0 {
		ae.Status = ge.Errors[0].Reason
	}
	// googleapi does not keep the "status" field; read it from the body,
	// which is dropped afterwards.
	var body struct {
		Error struct {
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	if strings.HasPrefix(strings.TrimSpace(ge.Body), "{") && json.Unmarshal([]byte(ge.Body), &body) == nil {
		if body.Error.Status != "" {
			ae.Status = body.Error.Status
		}
		if ae.Message == "" {
			ae.Message = body.Error.Message
		}
	}
	ae.Status = redact.Line(ae.Status, remote.SummaryLimit)
	if len(ae.Status) > 40 || strings.IndexFunc(ae.Status, func(r rune) bool { return !isCodeRune(r) }) >= 0 {
		ae.Status = "" // not a code: free text has no place here
	}
	ae.Message = redact.Line(ae.Message, remote.SummaryLimit)
	return ae
}

func isCodeRune(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.')
}

// restRetryDelay reads the google.rpc.RetryInfo a REST error answer
// carries in its details (gRPC's Retry-After, which the REST transport
// brings in the JSON body); zero when there is none. It parses the
// googleapi error itself: an *apierror.APIError wrapping it reports a
// gRPC status it made up, which has no details.
func restRetryDelay(ge *googleapi.Error) time.Duration {
	ae, ok := apierror.FromError(ge)
	if !ok {
		return 0
	}
	if d := ae.Details().RetryInfo.GetRetryDelay(); d != nil && d.IsValid() && d.AsDuration() > 0 {
		return d.AsDuration()
	}
	return 0
}

// RPCError is a gRPC status reduced to its code and a capped message; it
// still answers status.Code and status.FromError.
type RPCError struct {
	Status  *status.Status
	Message string
}

func (e *RPCError) Error() string {
	if e.Message == "" {
		return "gRPC " + e.Status.Code().String()
	}
	return "gRPC " + e.Status.Code().String() + ": " + e.Message
}

// GRPCStatus lets status.Code and status.FromError read the original.
func (e *RPCError) GRPCStatus() *status.Status { return e.Status }
