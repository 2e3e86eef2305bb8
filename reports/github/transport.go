package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// ErrIncomplete marks a run that stopped before the issues were in step
// with the report: a rate limit would have taken longer than
// github.rate_limit_wait, or calls failed for good. What was done is kept;
// the next run picks up from it. The CLI exits 3 on it.
var ErrIncomplete = errors.New("github: sync incomplete")

// Retry tuning for server errors (5xx and broken connections).
const (
	serverRetries  = 3
	serverBackoff  = time.Second
	secondaryFloor = time.Minute // GitHub: "wait for at least one minute"
)

// transport sits under go-github and does what go-github leaves to its
// callers: it waits out primary and secondary rate limits (within one
// budget for the whole run) and retries server errors, so go-github only
// ever sees the final answer. Doing it here, rather than around go-github's
// errors, also keeps go-github from refusing calls locally on a rate-limit
// reset it computed with the wall clock, which an injected clock can't move.
// It counts every request it sends.
type transport struct {
	base  http.RoundTripper
	now   func() time.Time
	sleep func(context.Context, time.Duration) error

	mu         sync.Mutex
	total      time.Duration // github.rate_limit_wait, for messages
	budget     time.Duration // rate-limit waiting left this run
	waited     time.Duration
	reads      int
	writes     int
	secondarys int // consecutive secondary limits, for exponential waits
	// spentUntil is when a primary quota that a successful answer said was
	// spent (X-RateLimit-Remaining: 0) comes back; requests wait for it.
	spentUntil time.Time
}

// reset starts a run's accounting.
func (t *transport) reset(budget time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total, t.budget, t.waited, t.reads, t.writes, t.secondarys = budget, budget, 0, 0, 0, 0
}

func (t *transport) counts() (reads, writes int, waited time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reads, t.writes, t.waited
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// serverRetry is how a call that failed on GitHub's side (a 5xx answer, a
// broken connection) is tried again: serverRetries more times, backing off
// from serverBackoff. sleep is the sink's, so tests run it on their clock.
func serverRetry(sleep func(context.Context, time.Duration) error) remote.RetryPolicy {
	return remote.RetryPolicy{Attempts: serverRetries + 1, Base: serverBackoff, Sleep: sleep}
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	sent := 0
	var resp *http.Response
	// failed is the last 5xx answer, drained when it is tried again; when
	// the tries run out it is what go-github gets, and reads as an error
	// with GitHub's status and message.
	var failed *http.Response
	err := remote.Retry(ctx, serverRetry(t.sleep), func() error {
		if failed != nil {
			drain(failed)
			failed = nil
		}
		// A rate limit is waited out within the run's budget and sent
		// again; it is not a failed try.
		for {
			sent++
			r, err := rewind(req, sent)
			if err != nil {
				return err
			}
			if err := t.awaitQuota(ctx, req); err != nil {
				return err
			}
			t.count(r.Method)
			res, err := t.base.RoundTrip(r)
			if err != nil {
				if ctx.Err() != nil || !idempotent(req.Method) {
					return err
				}
				return remote.Retryable(err, 0)
			}
			if wait, limited := t.rateLimitWait(res); limited {
				drain(res)
				if err := t.spend(ctx, req, wait); err != nil {
					return err
				}
				continue
			}
			t.mu.Lock()
			t.secondarys = 0
			t.mu.Unlock()
			t.noteQuota(res)
			// A POST that failed on the server may still have landed; the
			// caller checks before trying again, so only idempotent calls
			// are retried here.
			if res.StatusCode >= 500 && idempotent(req.Method) {
				failed = res
				return remote.Retryable(fmt.Errorf("HTTP %d", res.StatusCode), 0)
			}
			resp = res
			return nil
		}
	})
	if failed != nil {
		if ctx.Err() == nil {
			return failed, nil // tries spent: go-github reads GitHub's error
		}
		drain(failed)
	}
	return resp, err
}

func (t *transport) count(method string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if method == http.MethodGet || method == http.MethodHead {
		t.reads++
	} else {
		t.writes++
	}
}

// noteQuota remembers a primary quota that resp says is spent, and hides
// the reset from go-github: seeing X-RateLimit-Remaining: 0 with a reset
// ahead, go-github would refuse every later call itself until the reset
// (by the wall clock), without a request and without this transport
// waiting within github.rate_limit_wait. awaitQuota waits instead.
func (t *transport) noteQuota(resp *http.Response) {
	if resp.Header.Get("X-RateLimit-Remaining") != "0" {
		return
	}
	reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return
	}
	resp.Header.Del("X-RateLimit-Reset")
	t.mu.Lock()
	defer t.mu.Unlock()
	// One second past the reset, as the reset is rounded down.
	t.spentUntil = time.Unix(reset, 0).Add(time.Second)
}

// awaitQuota waits, within the budget, for a quota noteQuota saw spent, so
// no request is sent only to be refused.
func (t *transport) awaitQuota(ctx context.Context, req *http.Request) error {
	t.mu.Lock()
	until := t.spentUntil
	t.mu.Unlock()
	if until.IsZero() {
		return nil
	}
	if d := until.Sub(t.now()); d > 0 {
		if err := t.spend(ctx, req, d); err != nil {
			return err
		}
	}
	t.mu.Lock()
	if t.spentUntil.Equal(until) {
		t.spentUntil = time.Time{}
	}
	t.mu.Unlock()
	return nil
}

// spend waits d if the run's budget allows it, and otherwise gives up with
// ErrIncomplete at once: waiting part of the way would only burn time.
func (t *transport) spend(ctx context.Context, req *http.Request, d time.Duration) error {
	t.mu.Lock()
	if d > t.budget {
		left, total := t.budget, t.total
		t.mu.Unlock()
		if total == 0 {
			return fmt.Errorf("%w: rate limited on %s %s for %s; github.rate_limit_wait is 0, so bfaudit does not wait",
				ErrIncomplete, req.Method, req.URL.Path, humanWait(d))
		}
		return fmt.Errorf("%w: rate limited on %s %s for %s, more than the %s left of github.rate_limit_wait (%s)",
			ErrIncomplete, req.Method, req.URL.Path, humanWait(d), humanWait(left), humanWait(total))
	}
	t.budget -= d
	t.waited += d
	t.mu.Unlock()
	if err := t.sleep(ctx, d); err != nil {
		return fmt.Errorf("%w: waiting out a rate limit on %s %s: %w", ErrIncomplete, req.Method, req.URL.Path, err)
	}
	return nil
}

// rateLimitWait recognises GitHub's rate-limit answers and says how long to
// wait, following GitHub's rules: primary is 403/429 with
// X-RateLimit-Remaining: 0 (wait until X-RateLimit-Reset); secondary is
// 403/429 with Retry-After (wait that long), or with neither header but a
// message saying so (wait a minute, doubling while it repeats).
func (t *transport) rateLimitWait(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	now := t.now()
	if d := remote.RetryAfter(resp.Header, now); d > 0 {
		return d, true
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
		if err != nil {
			return secondaryFloor, true
		}
		// One second past the reset, as the reset is rounded down.
		return max(time.Unix(reset, 0).Sub(now)+time.Second, time.Second), true
	}
	if resp.StatusCode == http.StatusForbidden && !mentionsRateLimit(resp) {
		return 0, false // a permission problem: retrying will not help
	}
	t.mu.Lock()
	t.secondarys++
	n := t.secondarys
	t.mu.Unlock()
	return secondaryFloor << min(n-1, 4), true
}

// mentionsRateLimit peeks at an error body for GitHub's rate-limit message,
// leaving the body readable for go-github.
func mentionsRateLimit(resp *http.Response) bool {
	return strings.Contains(strings.ToLower(string(remote.Peek(resp, 4096))), "rate limit")
}

// rewind returns the request to send on this attempt, with a fresh body
// after the first.
func rewind(req *http.Request, attempt int) (*http.Request, error) {
	if attempt == 1 || req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody == nil {
		return nil, fmt.Errorf("github: cannot resend %s %s: body not replayable", req.Method, req.URL.Path)
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Body = body
	return r, nil
}

func drain(resp *http.Response) { remote.Drain(resp.Body) }

// humanWait prints a wait to the second, or to the millisecond when it is
// under a second: a budget of 400ms left must not read as "0s".
func humanWait(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
