// Package gcp holds what the Google Cloud collectors share: project id
// checks, one way to make a call (a deadline per call, bounded retries,
// errors summarised to status and message), bounded paging, and the HTTP
// client of the generated REST clients (google.golang.org/api), which do
// not retry by themselves.
package gcp

import (
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"google.golang.org/api/googleapi"
)

// Retryable marks quota (429) and server (5xx) answers, honouring
// Retry-After, and network failures for another try under
// collectors.Retry; other errors are returned as they are. An answer cut
// off at MaxAnswerBytes is final: asking again gets the same.
func Retryable(err error) error {
	if err == nil {
		return nil
	}
	if IsAnswerTooLarge(err) {
		return err
	}
	if code := Code(err); code != 0 {
		if code == http.StatusTooManyRequests || code >= 500 {
			return collectors.Retryable(err, collectors.RetryAfter(header(err), time.Now()))
		}
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return collectors.Retryable(err, 0)
	}
	return err
}

func header(err error) http.Header {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Header
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Header
	}
	return nil
}
