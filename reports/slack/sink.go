package slack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	secrets "github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/slack-go/slack"
)

// ErrIncomplete marks a post that did not fully go out: the CLI exits 3,
// and the digest is not recorded as posted, so the next run tries again.
var ErrIncomplete = errors.New("slack: digest incomplete")

// Sink posts digests and owner messages. A Sink posts one report at a
// time.
type Sink struct {
	cfg    Config
	owners model.Owners
	teams  model.Teams
	store  *history.Store
	poster poster
	sink   string // digest key's sink: where the digest goes
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
	out    io.Writer
	getenv func(string) string
	client *http.Client
	apiURL string // set by WithAPIURL: used as given
	// waitLeft is what is left of this Post's retry budget.
	waitLeft time.Duration
	// runAt is the audit time a confirmed message is recorded for.
	runAt time.Time
}

// Option adjusts a Sink.
type Option func(*Sink)

// WithHTTPClient sets the HTTP client for the Web API and the webhook.
func WithHTTPClient(c *http.Client) Option { return func(s *Sink) { s.client = c } }

// WithAPIURL points the Web API client at another base URL, used as given
// (slacktest serves the methods at its root, without /api/).
func WithAPIURL(u string) Option { return func(s *Sink) { s.apiURL = u } }

// WithSleep replaces the wait between rate-limited attempts (tests).
func WithSleep(f func(context.Context, time.Duration) error) Option {
	return func(s *Sink) { s.sleep = f }
}

// WithDryRunWriter sets where a dry run writes its plan, one JSON object
// per call a real run would make (default stdout).
func WithDryRunWriter(w io.Writer) Option { return func(s *Sink) { s.out = w } }

// WithEnv replaces os.Getenv for reading the token and webhook URL (tests).
func WithEnv(getenv func(string) string) Option { return func(s *Sink) { s.getenv = getenv } }

// New builds a Sink. The bot token (cfg.TokenEnv) is used when set, the
// incoming webhook URL (cfg.WebhookURLEnv) otherwise; a dry run needs
// neither. store may be nil only with period "every" or in a dry run:
// once-per-period posting needs the history store. A dry run over a store
// the run was Previewed in (not Recorded) prints what the real run will post.
func New(cfg Config, owners model.Owners, store *history.Store, opts ...Option) (*Sink, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	timeout := *cfg.Timeout
	s := &Sink{cfg: cfg, owners: owners, store: store, now: time.Now, sleep: remote.SleepContext,
		out: os.Stdout, getenv: os.Getenv, client: &http.Client{}} // each call has its own deadline
	for _, o := range opts {
		o(s)
	}
	if store == nil && cfg.Period != PeriodEvery && !cfg.DryRun {
		return nil, fmt.Errorf("slack.period: %s digests need the history store to post once per period; configure history or set slack.period: every", cfg.Period)
	}

	token := strings.TrimSpace(s.getenv(cfg.TokenEnv))
	hook := ""
	if cfg.WebhookURLEnv != "" {
		hook = strings.TrimSpace(s.getenv(cfg.WebhookURLEnv))
	}
	switch {
	case token != "":
		if cfg.Channel == "" {
			return nil, fmt.Errorf("slack.channel: required with a bot token (%s)", cfg.TokenEnv)
		}
		secrets.Add(token)
		base := apiBase(cfg.APIURL)
		if s.apiURL != "" {
			base = strings.TrimSuffix(s.apiURL, "/") + "/"
		}
		api := slack.New(token, slack.OptionHTTPClient(withBearer(s.client, token)), slack.OptionAPIURL(base))
		s.poster = botPoster{api: api, base: base, timeout: timeout}
		s.sink = "slack:" + cfg.Channel
	case hook != "":
		if cfg.OwnerMessages {
			return nil, fmt.Errorf("slack.owner_messages: needs a bot token (%s); an incoming webhook cannot send direct messages", cfg.TokenEnv)
		}
		// The URL is the secret: registered with the one redactor, it is
		// masked in any spelling (HTTP://..., a stray space) wherever it lands.
		secrets.Add(hook)
		s.poster = webhookPoster{url: hook, env: cfg.WebhookURLEnv, client: s.client, timeout: timeout}
		s.sink = "slack:webhook:" + cfg.WebhookURLEnv
	case cfg.DryRun:
		s.sink = "slack:" + cfg.Channel
	default:
		names := cfg.TokenEnv
		if cfg.WebhookURLEnv != "" {
			names += " or " + cfg.WebhookURLEnv
		}
		return nil, fmt.Errorf("slack: no credentials: set %s", names)
	}
	return s, nil
}

// Result says what Post did.
type Result struct {
	// Period is the digest period key, e.g. 2026-W10.
	Period string `json:"period"`
	// Posted is true when this call posted the channel digest.
	Posted bool `json:"posted"`
	// Skipped says why the digest was not posted (already posted this
	// period, or another audit is posting it).
	Skipped string `json:"skipped,omitempty"`
	// Messages counts channel messages sent: the digest, its threaded
	// continuations and the owner fallback list.
	Messages int `json:"messages"`
	// DirectMessages counts messages sent to owners.
	DirectMessages int `json:"direct_messages"`
	// Fallbacks are owners listed in the digest's thread instead of a
	// direct message, with the reason.
	Fallbacks []string `json:"fallbacks,omitempty"`
	// Recovered lists messages an earlier run claimed and died before
	// confirming, which this run finished: what it found had gone out is
	// adopted, only the rest posted.
	Recovered []string `json:"recovered,omitempty"`
	DryRun    bool     `json:"dry_run,omitempty"`
}

// Post delivers the digest for r's period, then any owner messages. An
// error wrapping ErrIncomplete means some message did not go out; what did
// go out is counted in the Result. Only what is due is done: owners whose
// message went out this period are not looked up again, and a rerun with
// nothing due makes no call to Slack.
func (s *Sink) Post(ctx context.Context, r *model.Report) (Result, error) {
	if r == nil || r.Now.IsZero() {
		return Result{}, fmt.Errorf("slack: report has no time (Now)")
	}
	key := history.DigestKey{Sink: s.sink, Period: periodKey(s.cfg.Period, r.Now)}
	res := Result{Period: key.Period, DryRun: s.cfg.DryRun}
	ch, err := s.changes(ctx, r)
	if err != nil {
		return res, fmt.Errorf("%w: %w", ErrIncomplete, err)
	}
	d := newDigest(r, periodLabel(s.cfg.Period, key.Period, r.Now), ch, s.cfg.MaxOldest)
	d.teams = s.teams
	var groups []ownerItems
	if s.cfg.OwnerMessages {
		groups = s.ownersDue(ctx, key.Period, ownerGroups(r, s.owners))
	}
	if s.cfg.DryRun {
		return res, s.dryRun(ctx, key, d, groups, &res)
	}

	s.waitLeft, s.runAt = retryBudget, r.Now
	dms, fallbacks := s.resolveOwners(ctx, groups)
	for _, f := range fallbacks {
		res.Fallbacks = append(res.Fallbacks, f.owner+": "+f.reason)
	}
	var errs []error
	if err := s.postDigest(ctx, key, d, fallbacks, &res); err != nil {
		errs = append(errs, err)
	}
	for _, o := range dms {
		if err := s.postDirect(ctx, key, d, o, &res); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return res, fmt.Errorf("%w: %w", ErrIncomplete, errors.Join(errs...))
	}
	return res, nil
}

// changes finds what moved since the last digest to this sink or, without
// one, since the previous delivered run: a run recorded and then killed
// before its sinks finished is never the base, so the run that recovers it
// does not compare the week with itself (issue 41).
func (s *Sink) changes(ctx context.Context, r *model.Report) (changes, error) {
	h := r.History
	if s.store != nil {
		at, ok, err := s.store.LastDigest(ctx, s.sink, r.Now)
		if err != nil {
			return changes{}, err
		}
		if ok {
			c, err := s.store.ChangesSince(ctx, at, r.Now)
			if err != nil {
				return changes{}, err
			}
			return changes{Label: "since the last digest (" + at.UTC().Format("2 Jan 2006") + ")", Known: true,
				New: c.New, Resolved: c.Resolved}, nil
		}
		base, ok, err := s.store.LastDelivered(ctx, r.Now)
		switch {
		case err != nil:
			return changes{}, err
		case !ok:
			return changes{}, nil // nothing delivered before: a first digest
		case h == nil || !base.Equal(h.PreviousRun):
			// Runs that never got through their sinks lie between: compare
			// with the last one that did.
			c, err := s.store.ChangesSince(ctx, base, r.Now)
			if err != nil {
				return changes{}, err
			}
			return changes{Label: "since the previous run (" + base.UTC().Format("2 Jan 2006") + ")", Known: true,
				New: c.New, Resolved: c.Resolved}, nil
		}
	}
	if h == nil || h.PreviousRun.IsZero() {
		return changes{}, nil
	}
	var fresh []model.Finding
	isNew := map[string]bool{}
	for _, fp := range h.New {
		isNew[fp] = true
	}
	for _, f := range r.Findings {
		if isNew[f.Fingerprint] && !f.Waived() {
			fresh = append(fresh, f)
		}
	}
	return changes{Label: "since the previous run (" + h.PreviousRun.UTC().Format("2 Jan 2006") + ")", Known: true,
		New: fresh, Resolved: h.Resolved}, nil
}

// postDigest posts the period's digest (continuations and the owner
// fallback list threaded under it) exactly once: see once.go. A digest
// already confirmed this period is skipped (res.Skipped says so) unless
// forced.
func (s *Sink) postDigest(ctx context.Context, key history.DigestKey, d *digest, fallbacks []ownerItems, res *Result) error {
	msgs := append(d.messages(), fallbackMessages(d, fallbacks)...)
	what := fmt.Sprintf("%s digest for %s", s.cfg.Period, key.Period)
	got, err := s.deliverOnce(ctx, key, EventDigest, what, s.cfg.Force, s.cfg.Channel, msgs, &res.Messages)
	res.Posted = got.posted
	if got.recovered != "" {
		res.Recovered = append(res.Recovered, got.recovered)
	}
	if got.already {
		res.Skipped = "the digest for " + key.Period + " was already posted (use force to post again)"
	}
	return err
}

// postThread posts msgs in order, the later ones as replies to the first
// when the transport threads. Parts found in Slack already (found) are not
// posted again; renew, when set, extends the claim's lease before each
// call. It returns how many parts are in Slack.
func (s *Sink) postThread(ctx context.Context, channel, what string, msgs []message, found landed, count *int, renew func() error) (int, error) {
	replyChannel, ts := found.channel, found.ts[1]
	for i, m := range msgs {
		if found.ts[i+1] != "" {
			continue
		}
		target, thread := channel, ""
		if i > 0 && s.poster.threads() {
			target, thread = replyChannel, ts
		}
		if renew != nil {
			if err := renew(); err != nil {
				return i, fmt.Errorf("post %s message %d of %d: %w", what, i+1, len(msgs), err)
			}
		}
		err := s.retrying(ctx, func() error {
			c, t, err := s.poster.post(ctx, target, thread, m)
			if err == nil && i == 0 {
				replyChannel, ts = c, t
				if replyChannel == "" {
					replyChannel = channel
				}
			}
			return err
		})
		if err != nil {
			return i, fmt.Errorf("post %s message %d of %d: %w", what, i+1, len(msgs), err)
		}
		*count++
	}
	return len(msgs), nil
}
