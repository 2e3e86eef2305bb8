package slack

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// maxAnswer caps what is read of one Web API answer. chat.postMessage
// echoes the message (at most 50 blocks of 3000 characters), far below it;
// a proxy's or a broken server's endless answer stops here instead of
// filling memory.
const maxAnswer = 4 << 20

// bearer is the Web API's transport. slack-go sends the bot token as a
// `token` field of the form body, where any proxy or gateway that logs
// bodies captures it; bearer sends it in the Authorization header, which
// Slack accepts for every method, and removes it from the body and the
// query. It also caps each answer at maxAnswer.
type bearer struct {
	base  http.RoundTripper
	token string
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if q := r.URL.Query(); q.Has("token") {
		q.Del("token")
		r.URL.RawQuery = q.Encode()
	}
	if req.Body != nil && isForm(req.Header.Get("Content-Type")) {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, fmt.Errorf("slack: request body is not a form: %w", err)
		}
		form.Del("token")
		enc := form.Encode()
		r.Body, r.ContentLength = io.NopCloser(strings.NewReader(enc)), int64(len(enc))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(enc)), nil }
	}
	r.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := b.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = remote.CappedBody(resp.Body, maxAnswer)
	return resp, nil
}

func isForm(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/x-www-form-urlencoded"
}

// withBearer returns a copy of c whose requests go through bearer.
func withBearer(c *http.Client, token string) *http.Client {
	w := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	w.Transport = bearer{base: base, token: token}
	return &w
}
