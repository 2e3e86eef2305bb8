// Package memlimit sets the Go runtime's soft memory limit from the memory
// limit of the cgroup the process runs in, or the machine's memory.
//
// Go collects garbage when the heap has grown by GOGC percent (100) since
// the last collection, so a run that holds 1.5 GB live can reach 3 GB
// before it collects, whatever memory the container has. Told its limit,
// the runtime collects harder as the heap nears it instead: a million
// artifacts then fit a 2 GiB CronJob, at some CPU. GOMEMLIMIT, when set
// (also to "off"), wins.
//
// The limits are read by github.com/KimMachineGun/automemlimit/memlimit
// (v1.0.2): FromCgroup (cgroup v1 and v2, parents included: under v2 it
// walks memory.max up to the mount, under v1 it reads the kernel's
// hierarchical_memory_limit) and FromSystem (the machine's memory). Its Set
// is not used: it takes one provider, and its ApplyFallback asks the
// machine only when the cgroup reports no limit, where a VM runner whose
// cgroup limit exceeds its memory needs the smaller of the two; Set also
// obeys an AUTOMEMLIMIT variable bfaudit does not document, sets
// math.MaxInt64 when nothing limits memory, and reports only through a
// logger, which does not exist yet when main starts and --verbose is not
// parsed. FromCgroup reads memory.max but not memory.high, so a v2 cgroup's
// throttling point is not taken as a limit, only its kill point.
package memlimit

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"

	automemlimit "github.com/KimMachineGun/automemlimit/memlimit"
)

// Share is the part of the cgroup's limit the Go heap may use; the rest
// is left to the binary, goroutine stacks and the page cache the cgroup
// also counts.
const Share = 0.9

// Result says what Apply did, for a debug log line.
type Result struct {
	Limit int64  // the limit found in bytes (cgroup or machine), 0 when none
	Set   int64  // the soft limit set in bytes, 0 when none was set
	Why   string // why it was or was not set
}

// Apply sets the runtime's soft memory limit to Share of the memory the
// process may use: its cgroup's limit, or the machine's memory when that
// is less (a small VM runner has no cgroup limit). GOMEMLIMIT, when set,
// wins.
func Apply(getenv func(string) string) Result {
	return apply(getenv, automemlimit.FromCgroup, automemlimit.FromSystem)
}

// apply is Apply with the two sources of a limit handed in, so a test
// can say what the cgroup and the machine report.
func apply(getenv func(string) string, cgroup, machine automemlimit.Provider) Result {
	if v := getenv("GOMEMLIMIT"); v != "" {
		return Result{Why: "GOMEMLIMIT is set (" + v + ")"}
	}
	lim, err := limit(cgroup)
	what := "the cgroup's memory limit"
	if total, _ := limit(machine); total > 0 && (lim == 0 || total < lim) {
		lim, what = total, "the machine's memory"
	}
	if lim == 0 {
		why := "neither a cgroup memory limit nor the machine's memory was found"
		if err != nil {
			why += ": " + err.Error()
		}
		return Result{Why: why}
	}
	set := int64(float64(lim) * Share)
	debug.SetMemoryLimit(set)
	return Result{Limit: lim, Set: set, Why: fmt.Sprintf("%.0f%% of %s", Share*100, what)}
}

// limit calls a provider: 0 and no error when it reports no limit (or
// one too large to be one), 0 and its error when it failed (not Linux,
// no /proc, an unreadable cgroup file).
func limit(p automemlimit.Provider) (int64, error) {
	n, err := p()
	if errors.Is(err, automemlimit.ErrNoLimit) || (err == nil && (n == 0 || n > math.MaxInt64)) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return int64(n), nil
}
