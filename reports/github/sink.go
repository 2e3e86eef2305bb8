package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	gh "github.com/google/go-github/v60/github"
)

// callTimeout bounds one call to GitHub, reading the answer included.
const callTimeout = 30 * time.Second

// Sink keeps the configured repository's issues in step with reports.
type Sink struct {
	cfg      Config
	owners   model.Owners
	client   *gh.Client
	tr       *transport
	render   *renderer
	now      func() time.Time
	sleep    func(context.Context, time.Duration) error
	out      io.Writer
	wroteAny bool            // a write was made (or printed) this run, for WriteInterval
	members  map[string]bool // team memberships looked up this run
}

type options struct {
	httpClient *http.Client
	baseURL    string
	now        func() time.Time
	sleep      func(context.Context, time.Duration) error
	out        io.Writer
	getenv     func(string) string
}

// Option adjusts a Sink; tests use them to point it at a fake.
type Option func(*options)

// WithHTTPClient sends requests through c (its Transport is kept, under
// the sink's rate-limit and retry handling).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithBaseURL overrides github.base_url; it is treated like an Enterprise
// URL ("/api/v3/" is added when missing).
func WithBaseURL(u string) Option { return func(o *options) { o.baseURL = u } }

// WithClock sets the clock used for rate-limit resets, and for comments
// and acceptances when the report carries no time of its own.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithSleep sets how the sink waits; it must return ctx's error when ctx
// ends first.
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(o *options) { o.sleep = sleep }
}

// WithDryRunWriter sets where a dry run writes its plan, one JSON object
// per line for each write it would make (default stdout). Nothing else is
// written there.
func WithDryRunWriter(w io.Writer) Option { return func(o *options) { o.out = w } }

// WithOutput is WithDryRunWriter, under its older name.
func WithOutput(w io.Writer) Option { return WithDryRunWriter(w) }

// WithGetenv sets how the token variable is read (default os.Getenv).
func WithGetenv(getenv func(string) string) Option { return func(o *options) { o.getenv = getenv } }

// New builds a Sink. cfg is validated (and its defaults filled) here.
// A token is required unless cfg.DryRun, which then reads anonymously.
func New(cfg Config, owners model.Owners, opts ...Option) (*Sink, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{now: time.Now, sleep: remote.SleepContext, out: os.Stdout, getenv: os.Getenv, baseURL: cfg.BaseURL}
	for _, opt := range opts {
		opt(&o)
	}
	token := cfg.token(o.getenv)
	if token == "" && !cfg.DryRun {
		return nil, fmt.Errorf("github: no token: set $%s (github.token_env) or github.token", cfg.TokenEnv)
	}
	r, err := newRenderer(cfg.TitleTemplate, cfg.BodyTemplate)
	if err != nil {
		return nil, err
	}
	// Every call has a deadline: a GitHub (or proxy) that accepts and never
	// answers must not hold the run past its own deadline.
	hc := &http.Client{Timeout: callTimeout}
	if o.httpClient != nil {
		c := *o.httpClient
		hc = &c
		if hc.Timeout == 0 {
			hc.Timeout = callTimeout
		}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	tr := &transport{base: base, now: o.now, sleep: o.sleep}
	hc.Transport = tr
	client := gh.NewClient(hc)
	client.UserAgent = "bfaudit (go-github/v60)"
	if token != "" {
		client = client.WithAuthToken(token)
	}
	if o.baseURL != "" {
		if client, err = client.WithEnterpriseURLs(o.baseURL, o.baseURL); err != nil {
			return nil, fmt.Errorf("github.base_url: %q: %w", redact.URL(o.baseURL), err)
		}
	}
	return &Sink{cfg: cfg, owners: owners, client: client, tr: tr, render: r,
		now: o.now, sleep: o.sleep, out: o.out}, nil
}

// Sync brings the repository's issues in step with r. It does not modify
// r; call Result.Apply to copy issue links and GitHub waivers into it. An
// error wrapping ErrIncomplete means the run stopped early; the Result
// still tells what was done.
func (s *Sink) Sync(ctx context.Context, r *model.Report) (res Result, err error) {
	s.tr.reset(s.cfg.rateLimitWait())
	s.wroteAny = false
	s.members = map[string]bool{}
	res = Result{IssueURLs: map[string]string{}}
	defer func() { res.Reads, res.Writes, res.RateLimitWaited = s.tr.counts() }()

	// Each listed issue is drafted as it arrives, while the listing's next
	// page is on its way (listIssues): an issue that does not change then
	// costs nothing once the listing is read.
	now := s.auditTime(r)
	byKey := reportWork(r)
	draft := func(is *ghIssue) {
		w := work{key: model.ParseID(is.marker.Backfill), id: is.marker.Backfill}
		if rw, ok := byKey[w.key]; ok {
			w = *rw
		}
		w.issue = is
		is.draft = s.plan(r, &w, now, nil)
	}
	issues, err := s.listIssues(ctx, time.Time{}, draft)
	if err != nil {
		// Without the full list, creating would duplicate: do nothing.
		return res, incomplete(fmt.Errorf("github: list issues of %s labelled %q: %w", s.cfg.Repo, s.cfg.Label, err))
	}
	existing, dups := indexIssues(issues)
	res.Duplicates = dups

	var errs []error
	works := workList(byKey, existing)
	streak := 0 // backfills in a row that failed on GitHub's side
	for i, w := range works {
		err := s.syncOne(ctx, r, w, now, &res)
		if err == nil {
			streak = 0
			continue
		}
		res.NotSynced = append(res.NotSynced, w.id)
		errs = append(errs, err)
		var stop string
		switch {
		case refused(err):
			// Not this backfill's problem: every write would fail alike.
			stop = fmt.Sprintf("the token may not write issues in %s (it needs Issues: read and write)", s.cfg.Repo)
		case errors.Is(err, ErrIncomplete) || ctx.Err() != nil:
			stop = "the error above ends the run" // a rate limit past the budget, the deadline
		case serverTrouble(err):
			if streak++; streak >= breakerThreshold {
				stop = fmt.Sprintf("%d backfills in a row failed with server or connection errors, so GitHub looks down", streak)
			}
		default:
			streak = 0
		}
		if stop != "" {
			rest := works[i+1:]
			for _, w := range rest {
				res.NotSynced = append(res.NotSynced, w.id)
			}
			errs = append(errs, fmt.Errorf("github: stopped: %s; not synced: %s", stop, listIDs(res.NotSynced)))
			break
		}
	}
	if len(errs) > 0 {
		return res, incomplete(errors.Join(errs...))
	}
	return res, nil
}

// breakerThreshold is how many backfills in a row may fail on GitHub's
// side (5xx, a broken connection) before the run stops calling GitHub:
// in an outage every backfill would spend its retries and backoff alike.
const breakerThreshold = 3

// serverTrouble reports a failure on GitHub's side or on the way to it: a
// 5xx answer or a call that got no answer (not one the run cancelled).
func serverTrouble(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errUnchecked) {
		return false
	}
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		return er.Response != nil && er.Response.StatusCode >= 500
	}
	var ue *url.Error
	return errors.As(err, &ue)
}

// listIDs names backfills for an error message: the first ten, then how
// many more (Result.NotSynced has them all).
func listIDs(ids []string) string {
	const shown = 10
	if len(ids) <= shown {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more (%d in all)", strings.Join(ids[:shown], ", "), len(ids)-shown, len(ids))
}

// auditTime is the time of the audit the report comes from (--now), which
// comments, notes and acceptances are judged by; the sink's clock when the
// report has none.
func (s *Sink) auditTime(r *model.Report) time.Time {
	if !r.Now.IsZero() {
		return r.Now
	}
	return s.now()
}

// refused reports an authentication or permission error (401, 403 that
// is not a rate limit: the transport waits those out).
func refused(err error) bool {
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return false
	}
	return er.Response.StatusCode == http.StatusUnauthorized || er.Response.StatusCode == http.StatusForbidden
}

// incomplete wraps err in ErrIncomplete unless it already is.
func incomplete(err error) error {
	if errors.Is(err, ErrIncomplete) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrIncomplete, err)
}
