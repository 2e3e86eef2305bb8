package kubeclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/internal/httplog"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// Bounds on what one answer of the API server may cost.
const (
	// maxAnswerBytes caps a successful answer: a page of 500 objects is a
	// few megabytes; an endless or giant body fails the call instead of
	// filling memory.
	maxAnswerBytes = 128 << 20
	// maxErrorBytes is how much of an error answer is read to find the
	// API's Status in it.
	maxErrorBytes = 64 << 10
)

// Bound gives every call of a client built from cfg the timeout and puts
// a guard between client-go and the network (see guard), keeping any
// wrapper the kubeconfig already set (an exec credential plugin's).
// capMessage shortens the API server's own error message, already
// redacted, before it travels in an error.
func Bound(cfg *rest.Config, timeout time.Duration, capMessage func(string) string) {
	cfg.Timeout = timeout
	prev := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prev != nil {
			rt = prev(rt)
		}
		return guard{next: httplog.Wrap(rt), capMessage: capMessage} // --verbose logs each call
	}
}

// guard sits between client-go and the network. client-go retries a 429
// or 5xx that carries Retry-After up to ten times and sleeps the full
// Retry-After, whatever the collector's timeout, and it copies the text of
// an unexpected error answer (a proxy's HTML page echoing the request's
// Authorization header) into its error. guard takes both out of its hands:
//
//   - every error answer reaches client-go as a plain API Status holding
//     only the status, the API's reason and message (capped) and the
//     Retry-After as details, so no body text travels further, and
//   - the Retry-After header is removed, so client-go does not retry by
//     itself; the collector's RetryPolicy retries instead, within its
//     budget, and fails at once when the server asks for more.
type guard struct {
	next       http.RoundTripper
	capMessage func(string) string
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
		resp.Body = &cappedBody{r: resp.Body, left: maxAnswerBytes}
		return resp, nil
	}
	if resp.StatusCode < 400 {
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	resp.Body.Close()
	st := g.summarise(resp.StatusCode, req.Method, body, remote.RetryAfter(resp.Header, time.Now()))
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
func (g guard) summarise(code int, method string, body []byte, after time.Duration) metav1.Status {
	secs := int(min(math.Ceil(after.Seconds()), math.MaxInt32))
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
		st.Message = g.capMessage(redact.String(st.Message))
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

// errAnswerTooLarge ends reading an answer past maxAnswerBytes.
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
