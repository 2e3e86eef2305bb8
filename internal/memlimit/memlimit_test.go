package memlimit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	automemlimit "github.com/KimMachineGun/automemlimit/memlimit"
)

const gib = 1 << 30

// none is a source that reports no limit, as the library's are when the
// cgroup has none.
func none() (uint64, error) { return 0, automemlimit.ErrNoLimit }

// noEnv is an environment without GOMEMLIMIT.
func noEnv(string) string { return "" }

// restoreLimit puts the runtime's soft limit back after a test changes it.
func restoreLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
}

func TestApplySetsNinetyPercent(t *testing.T) {
	restoreLimit(t)
	r := apply(noEnv, automemlimit.Limit(2*gib), automemlimit.Limit(24*gib))
	want := int64(2 * gib * 9 / 10)
	if r.Limit != 2*gib || r.Set != want || !strings.Contains(r.Why, "cgroup") {
		t.Fatalf("apply = %+v, want cgroup 2 GiB and %d set", r, want)
	}
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Errorf("runtime limit = %d, want %d", got, want)
	}
}

func TestApplyLeavesGOMEMLIMITAlone(t *testing.T) {
	restoreLimit(t)
	before := debug.SetMemoryLimit(-1)
	for _, v := range []string{"off", "1GiB"} {
		r := apply(func(k string) string {
			if k == "GOMEMLIMIT" {
				return v
			}
			return ""
		}, automemlimit.Limit(2*gib), automemlimit.Limit(24*gib))
		if r.Set != 0 || !strings.Contains(r.Why, "GOMEMLIMIT") {
			t.Errorf("GOMEMLIMIT=%s: apply = %+v, want nothing set", v, r)
		}
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("GOMEMLIMIT=%s: runtime limit changed to %d", v, got)
		}
	}
}

func TestApplyMachineMemoryBelowCgroup(t *testing.T) {
	restoreLimit(t)
	machine := automemlimit.Limit(2 * gib)
	if r := apply(noEnv, none, machine); r.Limit != 2*gib || r.Set != 2*gib*9/10 || !strings.Contains(r.Why, "machine") {
		t.Fatalf("no cgroup limit: apply = %+v, want 90%% of the machine's 2 GiB", r)
	}
	notLinux := func() (uint64, error) { return 0, automemlimit.ErrCgroupsNotSupported }
	if r := apply(noEnv, notLinux, machine); r.Limit != 2*gib || !strings.Contains(r.Why, "machine") {
		t.Fatalf("no cgroups: apply = %+v, want 90%% of the machine's 2 GiB", r)
	}
	if r := apply(noEnv, automemlimit.Limit(gib), machine); r.Limit != gib || !strings.Contains(r.Why, "cgroup") {
		t.Fatalf("apply = %+v, want the cgroup's 1 GiB, the smaller", r)
	}
}

func TestApplyWithoutLimit(t *testing.T) {
	restoreLimit(t)
	before := debug.SetMemoryLimit(-1)
	if r := apply(noEnv, none, none); r.Set != 0 || r.Why == "" {
		t.Errorf("apply = %+v, want nothing set and a reason", r)
	}
	broken := func() (uint64, error) { return 0, errors.New("failed to parse mountinfo") }
	if r := apply(noEnv, broken, none); r.Set != 0 || !strings.Contains(r.Why, "mountinfo") {
		t.Errorf("apply = %+v, want nothing set and the cgroup's error", r)
	}
	if r := apply(noEnv, automemlimit.Limit(math.MaxUint64), none); r.Set != 0 {
		t.Errorf("a limit beyond int64: apply = %+v, want nothing set", r)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("runtime limit changed to %d", got)
	}
}

// TestRealCgroup puts a child process in a real memory cgroup with a
// 768 MiB limit of its own, then in one whose parent has that limit, and
// checks that it finds the limit and sets 90% of it. It needs a writable
// cgroup v1 memory hierarchy (root, as on this project's machine and
// CI); elsewhere it skips.
func TestRealCgroup(t *testing.T) {
	if os.Getenv("MEMLIMIT_CHILD") == "1" {
		r := Apply(os.Getenv)
		fmt.Printf("limit=%d set=%d runtime=%d\n", r.Limit, r.Set, debug.SetMemoryLimit(-1))
		return
	}
	base := "/sys/fs/cgroup/memory"
	if _, err := os.Stat(filepath.Join(base, "memory.limit_in_bytes")); err != nil {
		t.Skip("no cgroup v1 memory hierarchy at", base)
	}
	dir, err := os.MkdirTemp(base, "bfaudit-memlimit-")
	if err != nil {
		t.Skip("cannot create a memory cgroup here:", err)
	}
	t.Cleanup(func() { _ = os.Remove(dir) })
	const limit = 768 << 20
	if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(strconv.Itoa(limit)), 0o644); err != nil {
		t.Skip("cannot set a memory limit here:", err)
	}
	child := filepath.Join(dir, "child")
	if err := os.Mkdir(child, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(child) })
	for name, group := range map[string]string{"own limit": dir, "parent's limit": child} {
		// The shell moves itself into the cgroup, then becomes the test binary.
		script := `echo $$ > "$1/cgroup.procs" && exec "$2" -test.run='^TestRealCgroup$'`
		cmd := exec.Command("sh", "-c", script, "sh", group, os.Args[0])
		cmd.Env = append(os.Environ(), "MEMLIMIT_CHILD=1", "GOMEMLIMIT=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: child: %v\n%s", name, err, out)
		}
		want := fmt.Sprintf("limit=%d set=%d runtime=%d", limit, limit*9/10, limit*9/10)
		if !strings.Contains(string(out), want) {
			t.Errorf("%s: child printed %q, want %q", name, out, want)
		}
	}
}

// FuzzApply hands apply any limits the library may report: the soft
// limit set is never negative and never above the smaller of them.
func FuzzApply(f *testing.F) {
	f.Add(uint64(2*gib), uint64(24*gib))
	f.Add(uint64(0), uint64(2*gib))
	f.Add(uint64(math.MaxUint64), uint64(1))
	f.Add(uint64(math.MaxInt64), uint64(math.MaxInt64)+1)
	f.Fuzz(func(t *testing.T, cgroup, machine uint64) {
		restoreLimit(t)
		r := apply(noEnv, automemlimit.Limit(cgroup), automemlimit.Limit(machine))
		smallest := uint64(math.MaxInt64)
		for _, n := range []uint64{cgroup, machine} {
			if n > 0 && n < smallest {
				smallest = n
			}
		}
		if r.Set < 0 || uint64(r.Limit) > smallest || uint64(r.Set) > uint64(r.Limit) {
			t.Fatalf("cgroup %d, machine %d: apply = %+v", cgroup, machine, r)
		}
	})
}
