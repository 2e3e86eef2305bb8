package slack

import (
	"context"
	"errors"
	"fmt"
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
	for attempt := 1; ; attempt++ {
		err := op()
		var rl *slack.RateLimitedError
		if err == nil || !errors.As(err, &rl) {
			return err
		}
		if attempt >= maxAttempts {
			return fmt.Errorf("still rate limited after %d attempts: %w", attempt, err)
		}
		wait := max(rl.RetryAfter, time.Second)
		if wait > s.waitLeft {
			return fmt.Errorf("%w: beyond the %s left of the retry budget (%s a run): not waiting", err, s.waitLeft, retryBudget)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return fmt.Errorf("%w: no time left to wait before the run's deadline", err)
		}
		if serr := s.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w (while waiting out the rate limit: %v)", err, serr)
		}
		s.waitLeft -= wait
	}
}
