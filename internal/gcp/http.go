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
	return &http.Client{Transport: httplog.Wrap(remote.CapAnswers(base, MaxAnswerBytes))}, nil
}
