package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	secrets "github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/slack-go/slack"
)

// poster delivers messages: the Web API with a bot token, or an incoming
// webhook.
type poster interface {
	// post sends m to channel, as a reply to threadTS when set; it returns
	// the channel and ts the message can be threaded under ("" when the
	// transport cannot thread).
	post(ctx context.Context, channel, threadTS string, m message) (string, string, error)
	// lookup finds a user's id by e-mail (users.lookupByEmail).
	lookup(ctx context.Context, email string) (string, error)
	// threads reports whether replies can be threaded.
	threads() bool
	// find looks in channel, from oldest on, for the parts of the keyed
	// message already posted (see once.go).
	find(ctx context.Context, channel string, k msgKey, oldest time.Time) (landed, error)
}

// botPoster calls the Web API. Each call has its own deadline (timeout),
// and its errors name the method's URL (without credentials), so a wrong
// api_url reads as such rather than as a bare "404 Not Found".
type botPoster struct {
	api     *slack.Client
	base    string // API base URL, ending in /api/
	timeout time.Duration
}

func (b botPoster) post(ctx context.Context, channel, threadTS string, m message) (string, string, error) {
	call, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	opts := []slack.MsgOption{
		slack.MsgOptionText(m.Text, false),
		slack.MsgOptionBlocks(m.Blocks...),
		slack.MsgOptionDisableLinkUnfurl(),
		slack.MsgOptionDisableMediaUnfurl(),
	}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	if m.Meta != nil {
		opts = append(opts, slack.MsgOptionMetadata(*m.Meta))
	}
	c, ts, err := b.api.PostMessageContext(call, channel, opts...)
	return c, ts, b.fail(ctx, call, "chat.postMessage", err)
}

func (b botPoster) lookup(ctx context.Context, email string) (string, error) {
	call, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	u, err := b.api.GetUserByEmailContext(call, email)
	if err != nil {
		return "", b.fail(ctx, call, "users.lookupByEmail", err)
	}
	return u.ID, nil
}

func (botPoster) threads() bool { return true }

// fail names the method and its URL in err; net/http's own "Post <url>:"
// is dropped so the URL shows once, always without credentials.
func (b botPoster) fail(run, call context.Context, method string, err error) error {
	if err == nil {
		return nil
	}
	err = callError(run, call, b.timeout, err)
	return secrets.Error(fmt.Errorf("%s %s: %w", method, secrets.URL(b.base+method), err))
}

// callError drops net/http's "Post <url>:" (the caller names the URL its
// own way), calls an answer over the cap unexpected, and says when the
// call's own timeout, not the run, ended it.
func callError(run, call context.Context, timeout time.Duration, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if remote.IsTooLarge(err) {
		err = fmt.Errorf("unexpected answer: %w", err)
	}
	if call.Err() != nil && run.Err() == nil {
		err = fmt.Errorf("%w (no answer within slack.timeout, %s)", err, timeout)
	}
	return err
}

// webhookPoster posts to an incoming webhook, which has its own channel and
// returns no ts: a long digest continues as further messages, each saying
// which part it is. The URL is a credential: errors name only its host and
// the variable it came from.
type webhookPoster struct {
	url     string
	env     string // variable the URL came from
	client  *http.Client
	timeout time.Duration
}

// webhookCode is the plain error code an incoming webhook answers with
// (invalid_payload, channel_not_found); any other body is not repeated.
var webhookCode = regexp.MustCompile(`^[a-z_]{1,60}$`)

func (w webhookPoster) post(ctx context.Context, _, _ string, m message) (string, string, error) {
	call, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	return "", "", w.fail(ctx, call, w.send(call, m))
}

func (w webhookPoster) send(ctx context.Context, m message) error {
	body, err := json.Marshal(webhookMessage(m))
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Slack answers "ok" or a short error code; a longer answer is neither.
	b, err := remote.ReadAll(resp.Body, 64)
	if remote.IsTooLarge(err) {
		b, err = nil, nil
	}
	if err != nil {
		return err
	}
	answer := strings.TrimSpace(string(b))
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return &slack.RateLimitedError{RetryAfter: remote.RetryAfter(resp.Header, time.Now())}
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		msg := fmt.Sprintf("HTTP %d", resp.StatusCode)
		if webhookCode.MatchString(answer) {
			msg += ": " + answer
		}
		return errors.New(msg)
	case answer != "ok":
		return fmt.Errorf("unexpected answer: HTTP %d without Slack's \"ok\" (a proxy's page?)", resp.StatusCode)
	}
	return nil
}

func (w webhookPoster) fail(run, call context.Context, err error) error {
	if err == nil {
		return nil
	}
	err = callError(run, call, w.timeout, err)
	where := "incoming webhook"
	if u, perr := url.Parse(w.url); perr == nil && u.Host != "" {
		where += " at " + u.Scheme + "://" + u.Host
	}
	return redact(fmt.Errorf("%s (URL from %s): %w", where, w.env, err), w.url)
}

func (webhookPoster) lookup(context.Context, string) (string, error) {
	return "", errors.New("an incoming webhook cannot look up users")
}

func (webhookPoster) threads() bool { return false }

// errNoHistory: a webhook posts blind, and cannot read back what landed.
var errNoHistory = errors.New("an incoming webhook cannot read the channel's history (a bot token with channels:history can)")

func (webhookPoster) find(context.Context, string, msgKey, time.Time) (landed, error) {
	return landed{}, errNoHistory
}

func webhookMessage(m message) *slack.WebhookMessage {
	f := false
	return &slack.WebhookMessage{Text: m.Text, Blocks: &slack.Blocks{BlockSet: m.Blocks}, UnfurlLinks: &f, UnfurlMedia: &f}
}

// redactedError hides a secret (the webhook URL, which is a credential)
// from an error's text while keeping it inspectable with errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact names the webhook URL for what it is where it appears verbatim,
// then lets the shared redactor mask it in any other spelling.
func redact(err error, secret string) error {
	if err == nil {
		return nil
	}
	if secret != "" {
		err = &redactedError{msg: strings.ReplaceAll(err.Error(), secret, "[webhook URL]"), err: err}
	}
	return secrets.Error(err)
}
