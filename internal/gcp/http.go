package gcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"google.golang.org/api/option"
	htransport "google.golang.org/api/transport/http"

	"github.com/bfaudit/bfaudit/internal/httplog"
)

// MaxAnswerBytes caps the body of one answer from a Google REST API. The
// largest real answers these collectors read (a page of 1000 tables with
// labels, an IAM policy) are a few MB; a server streaming more is
// misbehaving, and reading it whole would hold it all in memory.
const MaxAnswerBytes = 16 << 20

var errAnswerTooLarge = fmt.Errorf("answer larger than %d MiB: not read further", MaxAnswerBytes>>20)

// IsAnswerTooLarge reports an answer cut off at MaxAnswerBytes.
func IsAnswerTooLarge(err error) bool { return errors.Is(err, errAnswerTooLarge) }

// HTTPClient builds the client the generated REST clients are given
// (option.WithHTTPClient): authenticated as opts say (Application Default
// Credentials, a token source, or none), with every answer's body capped
// at MaxAnswerBytes, and each call logged under --verbose (httplog).
// Deadlines are the caller's: each call's context.
func HTTPClient(ctx context.Context, opts ...option.ClientOption) (*http.Client, error) {
	hc, _, err := htransport.NewClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	return &http.Client{Transport: httplog.Wrap(cappedTransport{base: base, max: MaxAnswerBytes})}, nil
}

type cappedTransport struct {
	base http.RoundTripper
	max  int64
}

func (t cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.max {
		resp.Body.Close()
		return nil, errAnswerTooLarge
	}
	resp.Body = &cappedBody{rc: resp.Body, left: t.max}
	return resp, nil
}

// cappedBody fails a read past its cap instead of ending quietly, so a
// cut-off answer is never decoded as a short, complete one.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the cap from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, errAnswerTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
