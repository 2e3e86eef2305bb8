package gcpiam

import (
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"google.golang.org/api/googleapi"
)

// retryable marks the errors worth another try: quota (429) and server
// errors (5xx), honouring Retry-After, and network failures. The generated
// REST clients do not retry by themselves.
func retryable(err error) error {
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
