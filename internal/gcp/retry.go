// Package gcp holds what the Google Cloud collectors share: project id
// checks and the classification of errors from Google's generated REST clients
// (google.golang.org/api), which do not retry by themselves.
package gcp

import (
	"errors"
	"net"
	"net/http"
	"time"

	"google.golang.org/api/googleapi"

	"github.com/bfaudit/bfaudit/collectors"
)

// Retryable marks quota (429) and server (5xx) answers, honouring
// Retry-After, and network failures for another try under
// collectors.Retry; other errors are returned as they are.
func Retryable(err error) error {
	if err == nil {
		return nil
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		if ge.Code == http.StatusTooManyRequests || ge.Code >= 500 {
			return collectors.Retryable(err, collectors.RetryAfter(ge.Header, time.Now()))
		}
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return collectors.Retryable(err, 0)
	}
	return err
}
