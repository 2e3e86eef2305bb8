package gcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/bfaudit/bfaudit/internal/redact"
	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/status"
)

// maxMessage caps the API's own message in an error: enough for "Access
// Denied: Project p: User does not have bigquery.datasets.get permission".
const maxMessage = 200

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
// status keeps its code and a capped message, and a transport error loses
// the query of its URL. Everything else is returned with its text
// scrubbed of credentials. nil stays nil.
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
		return &url.Error{Op: ue.Op, URL: stripQuery(ue.URL), Err: scrubbed(ue.Err)}
	}
	if st := grpcStatus(err); st != nil {
		return &RPCError{Status: st, Message: Scrub(st.Message())}
	}
	return scrubbed(err)
}

func summarizeREST(ge *googleapi.Error) *APIError {
	ae := &APIError{Code: ge.Code, Message: ge.Message, Header: ge.Header}
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
	ae.Status = Scrub(ae.Status)
	if len(ae.Status) > 40 || strings.IndexFunc(ae.Status, func(r rune) bool { return !isCodeRune(r) }) >= 0 {
		ae.Status = "" // not a code: free text has no place here
	}
	ae.Message = Scrub(ae.Message)
	return ae
}

func isCodeRune(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.')
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

// secretish matches what must never be repeated from an answer: an
// Authorization header's value, bearer and basic credentials, and
// key=value pairs naming a token, key, secret or password.
var secretish = regexp.MustCompile(`(?i)(authorization\s*[:=]\s*)(\S+\s+)?\S+|\b(bearer|basic)\s+\S+|\b((access_|refresh_|id_)?token|api_?key|key|secret|password|passwd|pwd)\s*[:=]\s*\S+`)

// Scrub makes one line of at most maxMessage characters of s, with
// registered secrets and anything that looks like a credential masked.
func Scrub(s string) string {
	s = redact.String(s)
	// One line first, so "Bearer\u00a0token" is seen as "Bearer token".
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }), " ")
	s = secretish.ReplaceAllString(s, redact.Mask)
	if r := []rune(s); len(r) > maxMessage {
		s = string(r[:maxMessage]) + "…"
	}
	return s
}

// scrubbed keeps err for errors.Is/As while its text is scrubbed.
func scrubbed(err error) error {
	if err == nil {
		return nil
	}
	msg := Scrub(err.Error())
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{msg: msg, err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// stripQuery drops the query (page tokens, an API key) and any user info
// from a URL in an error message.
func stripQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
