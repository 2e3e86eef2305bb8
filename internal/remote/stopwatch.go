package remote

import "time"

// Stopwatch measures how long something took: a call's latency, the time a
// collection has spent. It judges no time (an age, an expiry), so it reads
// the monotonic clock and not the audit's: `--now` moves what is judged,
// not how long a call takes. Collectors time calls with it instead of
// reading the wall clock themselves.
type Stopwatch struct{ start time.Time }

// StartStopwatch starts one.
func StartStopwatch() Stopwatch { return Stopwatch{start: time.Now()} }

// Elapsed is the time since it started.
func (s Stopwatch) Elapsed() time.Duration { return time.Since(s.start) }
