package prometheus

// The transport and retry rules of a `kubernetes:` block are the
// kubernetes collector's (collectors/kubernetes/transport.go, collect.go),
// copied because that package exports none of them and this package must
// not reach into another collector; keep the two in step.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/httplog"
	"github.com/bfaudit/bfaudit/internal/redact"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// Bounds on what one answer of the API server may cost.
const (
	// maxClusterAnswerBytes caps a successful answer (a page of 500
	// PrometheusRules, the cluster's discovery document): an endless or
	// giant body fails the call instead of filling memory.
	maxClusterAnswerBytes = 128 << 20
	// maxClusterErrorBytes is how much of an error answer is read to find
	// the API's Status in it.
	maxClusterErrorBytes = 64 << 10
)

// bound gives every call the source's timeout and puts guard between
// client-go and the network, keeping any wrapper the kubeconfig already
// set (an exec credential plugin's).
func bound(cfg *rest.Config, timeout time.Duration) {
	cfg.Timeout = timeout
	prev := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prev != nil {
			rt = prev(rt)
		}
		return guard{next: httplog.Wrap(rt)} // --verbose logs each call
	}
}

// guard sits between client-go and the network. client-go retries a 429
// or 5xx that carries Retry-After up to ten times and sleeps the full
// Retry-After, whatever the timeout, and it copies the text of an
// unexpected error answer (a proxy's page echoing the Authorization
// header) into its error. guard takes both out of its hands: every error
// answer reaches client-go as a plain API Status (status, the API's reason
// and capped message, Retry-After as details), and the Retry-After header
// is removed, so only the source's RetryPolicy retries, within its budget.
type guard struct {
	next http.RoundTripper
}

// WrappedRoundTripper lets client-go reach the transport underneath to
// cancel a request.
func (g guard) WrappedRoundTripper() http.RoundTripper { return g.next }

func (g guard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		resp.Body = &cappedBody{r: resp.Body, left: maxClusterAnswerBytes}
		return resp, nil
	}
	if resp.StatusCode < 400 {
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxClusterErrorBytes))
	resp.Body.Close()
	st := summarise(resp.StatusCode, req.Method, body, collectors.RetryAfter(resp.Header, time.Now()))
	out, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	resp.Header = resp.Header.Clone()
	resp.Header.Del("Retry-After")
	resp.Header.Set("Content-Type", "application/json")
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	return resp, nil
}

// summarise turns an error answer into an API Status: the API server's own
// Status when the body is one (its reason and capped message), else only
// the HTTP status, never the body.
func summarise(code int, method string, body []byte, after time.Duration) metav1.Status {
	secs := int(min(math.Ceil(after.Seconds()), math.MaxInt32))
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
		st.Message = clip(redact.String(st.Message), 200)
		st.Details = &metav1.StatusDetails{RetryAfterSeconds: int32(secs)}
		if st.Code == 0 {
			st.Code = int32(code)
		}
		if st.Status == "" {
			st.Status = metav1.StatusFailure
		}
		return st
	}
	msg := fmt.Sprintf("HTTP %d %s (response body omitted)", code, http.StatusText(code))
	st = apierrors.NewGenericServerResponse(code, method, schema.GroupResource{}, "", msg, secs, false).ErrStatus
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	return st
}

// errAnswerTooLarge ends reading an answer past maxClusterAnswerBytes.
var errAnswerTooLarge = errors.New("answer larger than 128 MiB: not read further")

// cappedBody fails a read past its limit instead of truncating silently,
// so the decoder reports an error rather than a short list.
type cappedBody struct {
	r    io.ReadCloser
	left int64
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errAnswerTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func (c *cappedBody) Close() error { return c.r.Close() }

// retryable marks the API server's throttling and transient failures for
// a retry, after the delay the server suggests.
func retryable(err error) error {
	if err == nil {
		return nil
	}
	if apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsServiceUnavailable(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || statusCode(err) >= 500 {
		var after time.Duration
		if s, ok := apierrors.SuggestsClientDelay(err); ok {
			after = time.Duration(s) * time.Second
		}
		return collectors.Retryable(err, after)
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
