package slack

import (
	"context"
	"errors"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/slack-go/slack"
)

// Rate limits: how often one call is tried, and how long one Post waits
// for Slack's 429s in all.
const (
	maxAttempts = 5
	retryBudget = remote.DefaultRetryBudget
)

// retrying waits out Slack's 429 answers (Retry-After, which slack-go
// returns as *slack.RateLimitedError and does not wait on by itself) and
// tries again; any other error is returned at once. Waits come out of the
// Post's retry budget: a Retry-After beyond what is left, or beyond the
// run's deadline, fails the call at once instead of sleeping through the
// audit.
func (s *Sink) retrying(ctx context.Context, op func() error) error {
	p := remote.RetryPolicy{
		Attempts: maxAttempts,
		Max:      retryBudget,
		// What is left of the Post's budget; when nothing is, a nanosecond
		// (a zero budget would mean remote's default) refuses every wait.
		Budget: max(s.waitLeft, time.Nanosecond),
		Sleep: func(ctx context.Context, d time.Duration) error {
			if err := s.sleep(ctx, d); err != nil {
				return err
			}
			s.waitLeft -= d
			return nil
		},
	}
	return remote.Retry(ctx, p, func() error {
		err := op()
		var rl *slack.RateLimitedError
		if errors.As(err, &rl) {
			return remote.Retryable(err, max(rl.RetryAfter, time.Second))
		}
		return err
	})
}
