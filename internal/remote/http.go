package remote

import (
	"context"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/internal/httplog"
)

// DoHTTP sends the request newReq builds, retrying 429 and 5xx answers and
// transport errors under p, honouring Retry-After. Any other non-2xx answer
// is returned as a *StatusError at once. On success the caller closes the
// body. newReq is called per attempt so bodies can be re-sent.
func DoHTTP(ctx context.Context, c *http.Client, p RetryPolicy, newReq func() (*http.Request, error)) (*http.Response, error) {
	if c == nil {
		c = http.DefaultClient
	}
	var resp *http.Response
	err := Retry(ctx, p, func() error {
		req, err := newReq()
		if err != nil {
			return err
		}
		req = req.WithContext(ctx)
		start := time.Now()
		r, err := c.Do(req)
		httplog.Log(ctx, req, r, err, time.Since(start)) // --verbose
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return Retryable(err, 0)
		}
		if r.StatusCode >= 200 && r.StatusCode < 300 {
			resp = r
			return nil
		}
		se := NewStatusError(req, r)
		if r.StatusCode == http.StatusTooManyRequests || r.StatusCode >= 500 {
			return Retryable(se, AnswerRetryAfter(r.Header))
		}
		return se
	})
	return resp, err
}
