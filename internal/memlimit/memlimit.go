// Package memlimit sets the Go runtime's soft memory limit from the memory
// limit of the cgroup the process runs in, or the machine's memory.
//
// Go collects garbage when the heap has grown by GOGC percent (100) since
// the last collection, so a run that holds 1.5 GB live can reach 3 GB
// before it collects, whatever memory the container has. Told its limit,
// the runtime collects harder as the heap nears it instead: a million
// artifacts then fit a 2 GiB CronJob, at some CPU. GOMEMLIMIT, when set
// (also to "off"), wins.
package memlimit

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
)

// Share is the part of the cgroup's limit the Go heap may use; the rest
// is left to the binary, goroutine stacks and the page cache the cgroup
// also counts.
const Share = 0.9

// unlimited is where cgroup v1 limits start to mean "none" (the kernel
// writes 2^63-1 rounded down to a page).
const unlimited = 1 << 62

// Result says what Apply did, for a debug log line.
type Result struct {
	Limit int64  // the limit found in bytes (cgroup or machine), 0 when none
	Set   int64  // the soft limit set in bytes, 0 when none was set
	Why   string // why it was or was not set
}

// Apply sets the runtime's soft memory limit to Share of the memory the
// process may use: its cgroup's limit, or the machine's memory when that
// is less (a small VM runner has no cgroup limit). Files are read through
// fsys, the root file system in production. GOMEMLIMIT, when set, wins.
func Apply(fsys fs.FS, getenv func(string) string) Result {
	if v := getenv("GOMEMLIMIT"); v != "" {
		return Result{Why: "GOMEMLIMIT is set (" + v + ")"}
	}
	lim, err := Limit(fsys)
	if err != nil {
		lim = 0 // not Linux, or no /proc: the machine's memory may still be known
	}
	what := "the cgroup's memory limit"
	if total := machineMemory(fsys); total > 0 && (lim == 0 || total < lim) {
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

// machineMemory reads MemTotal from /proc/meminfo, in bytes; 0 when
// unknown.
func machineMemory(fsys fs.FS) int64 {
	b, err := fs.ReadFile(fsys, "proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 || kb >= unlimited>>10 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// Limit returns the smallest memory limit, in bytes, of the cgroup this
// process runs in and of its parents, under cgroup v2 (memory.max,
// memory.high) and v1 (memory.limit_in_bytes); 0 when there is none.
func Limit(fsys fs.FS) (int64, error) {
	groups, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return 0, err
	}
	mounts, err := fs.ReadFile(fsys, "proc/self/mountinfo")
	if err != nil {
		return 0, err
	}
	var best int64
	for _, m := range cgroupMounts(mounts) {
		p, ok := groupPath(groups, m.v2)
		if !ok {
			continue
		}
		files := []string{"memory.limit_in_bytes"}
		if m.v2 {
			files = []string{"memory.max", "memory.high"}
		}
		for dir := m.dir(p); ; dir = path.Dir(dir) {
			for _, f := range files {
				if n := readLimit(fsys, path.Join(dir, f)); n > 0 && (best == 0 || n < best) {
					best = n
				}
			}
			if dir == m.point || dir == "." || dir == "/" {
				break
			}
		}
	}
	return best, nil
}

// mount is a cgroup file system holding the memory controller (v1) or
// the unified hierarchy (v2).
type mount struct {
	root  string // the cgroup the mount shows at its mount point
	point string // where it is mounted, without the leading slash
	v2    bool
}

// dir is the directory of cgroup p under the mount. A container that sees
// its host's cgroup path but mounts only its own cgroup gets the mount
// point itself.
func (m mount) dir(p string) string {
	rel, ok := strings.CutPrefix(p, m.root)
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/") && m.root != "/") {
		return m.point
	}
	return path.Clean(path.Join(m.point, rel))
}

// cgroupMounts reads /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT POINT
// OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTIONS".
func cgroupMounts(info []byte) []mount {
	var out []mount
	sc := bufio.NewScanner(bytes.NewReader(info))
	for sc.Scan() {
		before, after, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		f, tail := strings.Fields(before), strings.Fields(after)
		if len(f) < 5 || len(tail) < 1 {
			continue
		}
		m := mount{root: unescape(f[3]), point: strings.TrimPrefix(path.Clean(unescape(f[4])), "/")}
		if m.point == "" {
			m.point = "."
		}
		switch {
		case tail[0] == "cgroup2":
			m.v2 = true
		case tail[0] == "cgroup" && len(tail) >= 3 && hasOption(tail[2], "memory"):
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// groupPath finds this process's cgroup in /proc/self/cgroup
// ("ID:CONTROLLERS:PATH"): the line "0::PATH" for v2, the line whose
// controllers include memory for v1.
func groupPath(groups []byte, v2 bool) (string, bool) {
	for line := range strings.Lines(string(groups)) {
		parts := strings.SplitN(strings.TrimRight(line, "\n"), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if v2 && parts[0] == "0" && parts[1] == "" {
			return parts[2], true
		}
		if !v2 && hasOption(parts[1], "memory") {
			return parts[2], true
		}
	}
	return "", false
}

func hasOption(list, name string) bool {
	for o := range strings.SplitSeq(list, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// readLimit reads one limit file: a byte count, or "max" (none). Any
// other content, a missing file or a value meaning "none" give 0.
func readLimit(fsys fs.FS, name string) int64 {
	b, err := fs.ReadFile(fsys, strings.TrimPrefix(name, "/"))
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 || n >= unlimited {
		return 0
	}
	return n
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
