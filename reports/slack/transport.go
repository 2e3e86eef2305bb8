package slack

import (
	"context"
	"errors"
	"fmt"
	secrets "github.com/bfaudit/bfaudit/internal/redact"
	"net/http"
	"strings"
	"time"

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
}

// botPoster posts with chat.postMessage.
type botPoster struct{ api *slack.Client }

func (b botPoster) post(ctx context.Context, channel, threadTS string, m message) (string, string, error) {
	opts := []slack.MsgOption{
		slack.MsgOptionText(m.Text, false),
		slack.MsgOptionBlocks(m.Blocks...),
		slack.MsgOptionDisableLinkUnfurl(),
		slack.MsgOptionDisableMediaUnfurl(),
	}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	return b.api.PostMessageContext(ctx, channel, opts...)
}

func (b botPoster) lookup(ctx context.Context, email string) (string, error) {
	u, err := b.api.GetUserByEmailContext(ctx, email)
	if err != nil {
		return "", err
	}
	return u.ID, nil
}

func (botPoster) threads() bool { return true }

// webhookPoster posts to an incoming webhook, which has its own channel and
// returns no ts: a long digest continues as further messages, each saying
// which part it is.
type webhookPoster struct {
	url    string
	client *http.Client
}

func (w webhookPoster) post(ctx context.Context, _, _ string, m message) (string, string, error) {
	err := slack.PostWebhookCustomHTTPContext(ctx, w.url, w.client, webhookMessage(m))
	return "", "", redact(err, w.url)
}

func (webhookPoster) lookup(context.Context, string) (string, error) {
	return "", errors.New("an incoming webhook cannot look up users")
}

func (webhookPoster) threads() bool { return false }

func webhookMessage(m message) *slack.WebhookMessage {
	f := false
	return &slack.WebhookMessage{Text: m.Text, Blocks: &slack.Blocks{BlockSet: m.Blocks}, UnfurlLinks: &f, UnfurlMedia: &f}
}

// maxAttempts bounds how often one call is retried after 429s.
const maxAttempts = 5

// retrying waits out Slack's 429 answers (Retry-After, which slack-go
// returns as *slack.RateLimitedError and does not wait on by itself) and
// tries again; any other error is returned at once.
func retrying(ctx context.Context, sleep func(context.Context, time.Duration) error, op func() error) error {
	for attempt := 1; ; attempt++ {
		err := op()
		var rl *slack.RateLimitedError
		if err == nil || !errors.As(err, &rl) {
			return err
		}
		if attempt >= maxAttempts {
			return fmt.Errorf("still rate limited after %d attempts: %w", attempt, err)
		}
		wait := rl.RetryAfter
		if wait <= 0 {
			wait = time.Second
		}
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("%w (while waiting out the rate limit: %v)", rl, err)
		}
	}
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
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
