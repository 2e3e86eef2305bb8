package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy bounds retries of a call to a remote system. The zero value
// retries 4 times from 500ms, doubling, capped at 30s per wait and 60s of
// waiting in all.
type RetryPolicy struct {
	Attempts int           // total tries, including the first
	Base     time.Duration // first wait
	Max      time.Duration // longest single wait, also the cap on Retry-After
	// Budget caps the total time spent waiting between tries. A server
	// that asks to wait longer than what is left (Retry-After: 3600) gets
	// no more tries: the call fails at once and its scope is degraded,
	// instead of the audit sleeping past its deadline.
	Budget time.Duration
	// Sleep waits; tests replace it to run instantly. It returns ctx's error
	// when ctx ends first.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = 4
	}
	if p.Base <= 0 {
		p.Base = 500 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = 30 * time.Second
	}
	if p.Budget <= 0 {
		p.Budget = DefaultRetryBudget
	}
	if p.Sleep == nil {
		p.Sleep = SleepContext
	}
	return p
}

// DefaultRetryBudget is the most a call waits between tries in all.
const DefaultRetryBudget = 60 * time.Second

// DefaultCallTimeout is the deadline of one call to a remote system unless
// a source's `timeout` says otherwise.
const DefaultCallTimeout = 30 * time.Second

// MaxCallTimeout is the longest per-call timeout a config may set.
const MaxCallTimeout = 30 * time.Minute

// CheckTimeout validates a per-call timeout from a config key: it must be
// positive (0 would mean "wait forever") and at most MaxCallTimeout.
func CheckTimeout(key string, d time.Duration) error {
	switch {
	case d <= 0:
		return fmt.Errorf("%s: must be a positive duration such as 30s (got %s): a call without a deadline can hang the audit", key, d)
	case d > MaxCallTimeout:
		return fmt.Errorf("%s: %s is longer than the %s allowed for one call", key, d, MaxCallTimeout)
	}
	return nil
}

// SleepContext waits for d or until ctx ends.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RetryableError asks Retry to try again, after After when it is set (a
// server's Retry-After) or after the policy's backoff otherwise.
type RetryableError struct {
	Err   error
	After time.Duration
}

func (e *RetryableError) Error() string { return e.Err.Error() }
func (e *RetryableError) Unwrap() error { return e.Err }

// Retryable marks err as worth retrying.
func Retryable(err error, after time.Duration) error {
	return &RetryableError{Err: err, After: after}
}

// Retry calls op until it succeeds, returns an error that is not a
// RetryableError, or the policy's attempts run out. The last error is
// returned unwrapped from its RetryableError.
func Retry(ctx context.Context, p RetryPolicy, op func() error) error {
	p = p.withDefaults()
	wait := p.Base
	left := p.Budget
	for attempt := 1; ; attempt++ {
		err := op()
		var re *RetryableError
		if err == nil || !errors.As(err, &re) {
			return err
		}
		if attempt >= p.Attempts {
			return fmt.Errorf("gave up after %d attempts: %w", attempt, re.Err)
		}
		d := wait
		if re.After > 0 {
			if re.After > left || re.After > p.Max {
				return fmt.Errorf("%w (server asked to retry after %s, beyond the retry budget: not waiting)", re.Err, re.After.Round(time.Second))
			}
			d = re.After
		}
		d = min(d, p.Max, left)
		if d <= 0 {
			return fmt.Errorf("gave up after %d attempts (retry budget %s spent): %w", attempt, p.Budget, re.Err)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
			return fmt.Errorf("%w (no time left to retry before the deadline)", re.Err)
		}
		if err := p.Sleep(ctx, d); err != nil {
			return fmt.Errorf("%w (while waiting to retry: %w)", re.Err, err)
		}
		left -= d
		wait *= 2
	}
}

// RetryAfter parses a Retry-After header (seconds or an HTTP date); zero
// when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// CheckCount validates a bound from a config key (max_pages, max_rows):
// negative is refused, 0 takes the default def.
func CheckCount[N int | int64](key string, n *N, def N) error {
	if *n < 0 {
		return fmt.Errorf("%s: %d; expected a positive count (default %d)", key, *n, def)
	}
	if *n == 0 {
		*n = def
	}
	return nil
}
