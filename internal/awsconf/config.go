package awsconf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"

	"github.com/bfaudit/bfaudit/internal/httplog"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// MaxAnswerBytes caps the body of one answer. The largest answers these
// collectors read (a page of 1000 objects or 100 Glue tables with their
// columns, an account's authorization details page) are a few MB.
const MaxAnswerBytes = 16 << 20

// Attempts is how many times the SDK tries one call (the first included);
// its waits are capped at MaxBackoff, and Settings.Timeout bounds them all.
const (
	Attempts   = 3
	MaxBackoff = 5 * time.Second
)

// Load builds the SDK configuration of a source: the default credential
// chain (or Profile), the first region (clients are given the region of
// each unit), Endpoint when set, answers capped at MaxAnswerBytes and
// logged under --verbose, the SDK's standard retries bounded. It does
// not call AWS: credentials are resolved at the first call, so a source
// without them fails its units, not its config. extra adds load options
// (tests: static credentials).
func Load(ctx context.Context, s Settings, extra ...func(*config.LoadOptions) error) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{
		// The SDK's own log (checksum and retry notes) would go to
		// stderr, outside the run's log: off.
		config.WithLogger(logging.Nop{}),
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = Attempts
				o.MaxBackoff = MaxBackoff
			})
		}),
	}
	if len(s.Regions) > 0 {
		opts = append(opts, config.WithRegion(s.Regions[0]))
	}
	if s.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(s.Profile))
	}
	if s.Endpoint != "" {
		opts = append(opts, config.WithBaseEndpoint(s.Endpoint))
	}
	if s.ExportDir != "" {
		// Nothing reaches AWS: no credential is looked for.
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("SAVED", "SAVED", "")))
	}
	cfg, err := config.LoadDefaultConfig(ctx, append(opts, extra...)...)
	if err != nil {
		// The loader's errors name files and profiles, never a secret.
		return aws.Config{}, fmt.Errorf("aws configuration: %w", err)
	}
	// The SDK's own client stays underneath: it honours AWS_CA_BUNDLE
	// and the proxy settings, which a client of another type would lose.
	cfg.HTTPClient = loggedClient{next: remote.CapAnswers(doer{cfg.HTTPClient}, MaxAnswerBytes)}
	switch {
	case s.ExportDir != "":
		cfg.HTTPClient = &savedClient{dir: resolve(s.BaseDir, s.ExportDir), shown: s.ExportDir, files: &savedFiles{}}
	case s.SaveAnswers != "":
		cfg.HTTPClient = &savedClient{dir: resolve(s.BaseDir, s.SaveAnswers), shown: s.SaveAnswers, files: &savedFiles{}, record: cfg.HTTPClient}
	}
	if s.ExportDir != "" || s.SaveAnswers != "" {
		cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(keepInput, middleware.After)
		})
	}
	return cfg, nil
}

// loggedClient logs each call under --verbose (httplog) and reads its
// answer whole, under its cap, before the SDK decodes it: one over the
// cap fails at the speed of a copy rather than of the SDK's decoder, and
// within the call's deadline. (Every answer bfaudit asks AWS for is a
// page or a description; no object's content is ever downloaded.) A
// request that got no answer is a *RequestError naming it, as net/http's
// client names a failed request.
type loggedClient struct{ next http.RoundTripper }

func (c loggedClient) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodHead {
		// An answer to HEAD has no body, so its connection is pooled as
		// soon as its headers are read: a server (or proxy) still writing
		// after them would hand those bytes to the next request on that
		// connection, another bucket's, which would then wait out its
		// deadline. One connection per HEAD (S3's HeadBucket, once a
		// bucket a run).
		req.Close = true
	}
	start := time.Now()
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		var body []byte
		body, err = remote.ReadAll(resp.Body, MaxAnswerBytes)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	httplog.Log(req.Context(), req, resp, err, time.Since(start))
	if err != nil {
		return nil, &RequestError{Request: requestOf(req), Err: err}
	}
	return resp, nil
}

// doer is an aws.HTTPClient as a RoundTripper.
type doer struct{ c aws.HTTPClient }

func (d doer) RoundTrip(req *http.Request) (*http.Response, error) { return d.c.Do(req) }

// resolve is p relative to the config file's folder base.
func resolve(base, p string) string {
	if filepath.IsAbs(p) || base == "" {
		return p
	}
	return filepath.Join(base, p)
}
