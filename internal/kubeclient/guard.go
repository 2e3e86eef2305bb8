package kubeclient

import (
	"bytes"
	"encoding/json"
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
func Bound(cfg *rest.Config, timeout time.Duration) {
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
// Retry-After, whatever the collector's timeout, and it copies the text of
// an unexpected error answer (a proxy's HTML page echoing the request's
// Authorization header) into its error. guard takes both out of its hands:
//
//   - every error answer reaches client-go as a plain API Status holding
//     only the status, the API's reason and message (one masked line of
//     at most remote.SummaryLimit characters) and the Retry-After as
//     details, so no body text travels further, and
//   - the Retry-After header is removed, so client-go does not retry by
//     itself; the collector's RetryPolicy retries instead, within its
//     budget, and fails at once when the server asks for more.
//
// A successful answer's body is capped at maxAnswerBytes.
type guard struct{ next http.RoundTripper }

// WrappedRoundTripper lets client-go reach the transport underneath to
// cancel a request.
func (g guard) WrappedRoundTripper() http.RoundTripper { return g.next }

func (g guard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		resp.Body = remote.CappedBody(resp.Body, maxAnswerBytes)
		return resp, nil
	}
	if resp.StatusCode < 400 {
		return resp, nil
	}
	// A body past the cap is no Status worth reading: only the HTTP
	// status is kept then.
	body, _ := remote.ReadAll(resp.Body, maxErrorBytes)
	resp.Body.Close()
	st := summarise(resp.StatusCode, req.Method, body, remote.AnswerRetryAfter(resp.Header))
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
// Status when the body is one (its reason and message), else the HTTP
// status with the code and message of another JSON error shape
// (remote.SummarizeErrorBody: a proxy or gateway in front of the API
// server), never the body itself.
func summarise(code int, method string, body []byte, after time.Duration) metav1.Status {
	secs := int(min(math.Ceil(after.Seconds()), math.MaxInt32))
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
		st.Message = redact.Line(st.Message, remote.SummaryLimit)
		st.Details = &metav1.StatusDetails{RetryAfterSeconds: int32(secs)}
		if st.Code == 0 {
			st.Code = int32(code)
		}
		if st.Status == "" {
			st.Status = metav1.StatusFailure
		}
		return st
	}
	msg := fmt.Sprintf("HTTP %d %s", code, http.StatusText(code))
	if s := remote.SummarizeErrorBody(body); s != "" {
		msg += ": " + s
	} else {
		msg += " (response body omitted)"
	}
	st = apierrors.NewGenericServerResponse(code, method, schema.GroupResource{}, "", msg, secs, false).ErrStatus
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	return st
}
