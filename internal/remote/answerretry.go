package remote

import (
	"net/http"
	"strconv"
	"time"
)

// AnswerRetryAfter is RetryAfter read against the answer's own Date
// header instead of the local clock: a Retry-After date is on the
// server's clock, which Date gives (so clock skew does not count), and
// no code path reads time.Now for it. Without a readable Date only a
// delay in seconds is read; a date then gives zero (the policy's
// backoff).
func AnswerRetryAfter(h http.Header) time.Duration {
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		return RetryAfter(h, date)
	}
	if _, err := strconv.Atoi(h.Get("Retry-After")); err != nil {
		return 0
	}
	return RetryAfter(h, time.Time{}) // seconds: the clock is not read
}
