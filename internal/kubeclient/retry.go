package kubeclient

import (
	"errors"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Retryable marks the API server's throttling and transient failures for
// a retry under a remote.RetryPolicy, after the delay the server
// suggests; any other error is returned as it is.
func Retryable(err error) error {
	if err == nil {
		return nil
	}
	if apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsServiceUnavailable(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || statusCode(err) >= 500 {
		var after time.Duration
		if s, ok := apierrors.SuggestsClientDelay(err); ok {
			after = time.Duration(s) * time.Second
		}
		return remote.Retryable(err, after)
	}
	return err
}

func statusCode(err error) int32 {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return st.Status().Code
	}
	return 0
}
