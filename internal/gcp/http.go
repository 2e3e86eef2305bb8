package gcp

import (
	"context"
	"net/http"

	"google.golang.org/api/option"
	htransport "google.golang.org/api/transport/http"

	"github.com/bfaudit/bfaudit/internal/httplog"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// MaxAnswerBytes caps the body of one answer from a Google REST API. The
// largest real answers these collectors read (a page of 1000 tables with
// labels, an IAM policy) are a few MB; a server streaming more is
// misbehaving, and reading it whole would hold it all in memory.
const MaxAnswerBytes = 16 << 20

// HTTPClient builds the client the generated REST clients are given
// (option.WithHTTPClient): authenticated as opts say (Application Default
// Credentials, a token source, or none), with every answer's body capped
// at MaxAnswerBytes (reading past it is a *remote.TooLargeError), and each
// call logged under --verbose (httplog). Deadlines are the caller's: each
// call's context.
func HTTPClient(ctx context.Context, opts ...option.ClientOption) (*http.Client, error) {
	hc, _, err := htransport.NewClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	return &http.Client{Transport: httplog.Wrap(cappedTransport{base: base})}, nil
}

// cappedTransport caps every answer's body: the generated clients read
// bodies themselves.
type cappedTransport struct{ base http.RoundTripper }

func (t cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > MaxAnswerBytes {
		resp.Body.Close()
		return nil, &remote.TooLargeError{Max: MaxAnswerBytes}
	}
	resp.Body = remote.CappedBody(resp.Body, MaxAnswerBytes)
	return resp, nil
}
