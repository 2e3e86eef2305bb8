package memlimit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

const gib = 1 << 30

// files builds a root file system from path → content.
func files(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
	}
	return m
}

const (
	v1Mounts = "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
		"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	v2Mounts = "27 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
)

func TestLimit(t *testing.T) {
	cases := []struct {
		name string
		fsys fstest.MapFS
		want int64
	}{
		{"v2 in a container with its own cgroup namespace", files(
			"proc/self/cgroup", "0::/\n",
			"proc/self/mountinfo", v2Mounts,
			"sys/fs/cgroup/memory.max", "2147483648\n",
		), 2 * gib},
		{"v2, the parent's limit is smaller", files(
			"proc/self/cgroup", "0::/kubepods/pod1/c1\n",
			"proc/self/mountinfo", v2Mounts,
			"sys/fs/cgroup/kubepods/pod1/c1/memory.max", "max\n",
			"sys/fs/cgroup/kubepods/pod1/memory.max", "1073741824\n",
			"sys/fs/cgroup/kubepods/memory.max", "4294967296\n",
		), 1 * gib},
		{"v2, memory.high below memory.max", files(
			"proc/self/cgroup", "0::/job\n",
			"proc/self/mountinfo", v2Mounts,
			"sys/fs/cgroup/job/memory.max", "2147483648\n",
			"sys/fs/cgroup/job/memory.high", "1610612736\n",
		), 1536 << 20},
		{"v2 without a limit", files(
			"proc/self/cgroup", "0::/user.slice\n",
			"proc/self/mountinfo", v2Mounts,
			"sys/fs/cgroup/user.slice/memory.max", "max\n",
		), 0},
		{"v1 memory controller, hybrid layout (this project's machine)", files(
			"proc/self/cgroup", "8:pids:/\n4:memory:/process_api/abc\n1:cpu:/\n0::/\n",
			"proc/self/mountinfo", v1Mounts,
			"sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes", "3221225472\n",
			"sys/fs/cgroup/memory/process_api/memory.limit_in_bytes", "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n",
		), 3 * gib},
		{"v1 unlimited", files(
			"proc/self/cgroup", "4:memory:/\n",
			"proc/self/mountinfo", v1Mounts,
			"sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n",
		), 0},
		{"v1 container that sees the host's path but mounts only its own cgroup", files(
			"proc/self/cgroup", "4:memory:/docker/0123abcd\n",
			"proc/self/mountinfo", "35 31 0:32 /docker/0123abcd /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes", "536870912\n",
		), 512 << 20},
		{"v1 mount root that is not a parent of the path", files(
			"proc/self/cgroup", "4:memory:/other\n",
			"proc/self/mountinfo", "35 31 0:32 /docker/x /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes", "536870912\n",
		), 512 << 20},
		{"garbage in a limit file is no limit", files(
			"proc/self/cgroup", "0::/\n",
			"proc/self/mountinfo", v2Mounts,
			"sys/fs/cgroup/memory.max", "lots\n",
		), 0},
		{"a mount point with an escaped space", files(
			"proc/self/cgroup", "0::/\n",
			"proc/self/mountinfo", `27 22 0:26 / /my\040cgroup rw - cgroup2 cgroup2 rw`+"\n",
			"my cgroup/memory.max", "1073741824",
		), 1 * gib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Limit(c.fsys)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Limit = %d, want %d", got, c.want)
			}
		})
	}
}

func TestLimitWithoutProc(t *testing.T) {
	if _, err := Limit(fstest.MapFS{}); err == nil {
		t.Fatal("no /proc: want an error")
	}
}

// restoreLimit puts the runtime's soft limit back after a test changes it.
func restoreLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
}

func TestApplySetsNinetyPercent(t *testing.T) {
	restoreLimit(t)
	fsys := files("proc/self/cgroup", "0::/\n", "proc/self/mountinfo", v2Mounts, "sys/fs/cgroup/memory.max", "2147483648\n")
	r := Apply(fsys, func(string) string { return "" })
	want := int64(2 * gib * 9 / 10)
	if r.Limit != 2*gib || r.Set != want {
		t.Fatalf("Apply = %+v, want cgroup 2 GiB and %d set", r, want)
	}
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Errorf("runtime limit = %d, want %d", got, want)
	}
}

func TestApplyLeavesGOMEMLIMITAlone(t *testing.T) {
	restoreLimit(t)
	before := debug.SetMemoryLimit(-1)
	fsys := files("proc/self/cgroup", "0::/\n", "proc/self/mountinfo", v2Mounts, "sys/fs/cgroup/memory.max", "2147483648\n")
	for _, v := range []string{"off", "1GiB"} {
		r := Apply(fsys, func(k string) string {
			if k == "GOMEMLIMIT" {
				return v
			}
			return ""
		})
		if r.Set != 0 || !strings.Contains(r.Why, "GOMEMLIMIT") {
			t.Errorf("GOMEMLIMIT=%s: Apply = %+v, want nothing set", v, r)
		}
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("GOMEMLIMIT=%s: runtime limit changed to %d", v, got)
		}
	}
}

func TestApplyMachineMemoryBelowCgroup(t *testing.T) {
	restoreLimit(t)
	fsys := files("proc/self/cgroup", "0::/\n", "proc/self/mountinfo", v2Mounts, "sys/fs/cgroup/memory.max", "max\n",
		"proc/meminfo", "MemTotal:        2097152 kB\nMemFree:          100000 kB\n")
	r := Apply(fsys, func(string) string { return "" })
	if r.Limit != 2*gib || r.Set != 2*gib*9/10 || !strings.Contains(r.Why, "machine") {
		t.Fatalf("Apply = %+v, want 90%% of the machine's 2 GiB", r)
	}
	fsys["sys/fs/cgroup/memory.max"] = &fstest.MapFile{Data: []byte("1073741824\n")}
	if r := Apply(fsys, func(string) string { return "" }); r.Limit != gib || !strings.Contains(r.Why, "cgroup") {
		t.Fatalf("Apply = %+v, want the cgroup's 1 GiB, the smaller", r)
	}
	for _, bad := range []string{"MemTotal: lots kB\n", "MemTotal: 5 MB\n", "Nothing: 1 kB\n"} {
		fsys["proc/meminfo"] = &fstest.MapFile{Data: []byte(bad)}
		fsys["sys/fs/cgroup/memory.max"] = &fstest.MapFile{Data: []byte("max\n")}
		if r := Apply(fsys, func(string) string { return "" }); r.Set != 0 {
			t.Errorf("meminfo %q: Apply = %+v, want nothing set", bad, r)
		}
	}
}

func TestApplyWithoutLimit(t *testing.T) {
	restoreLimit(t)
	before := debug.SetMemoryLimit(-1)
	fsys := files("proc/self/cgroup", "0::/\n", "proc/self/mountinfo", v2Mounts, "sys/fs/cgroup/memory.max", "max\n")
	if r := Apply(fsys, func(string) string { return "" }); r.Set != 0 {
		t.Errorf("Apply = %+v, want nothing set", r)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("runtime limit changed to %d", got)
	}
}

// TestRealCgroup puts a child process in a real memory cgroup with a
// 768 MiB limit and checks that it finds the limit and sets 90% of it.
// It needs a writable cgroup v1 memory hierarchy (root, as on this
// project's machine and CI); elsewhere it skips.
func TestRealCgroup(t *testing.T) {
	if os.Getenv("MEMLIMIT_CHILD") == "1" {
		r := Apply(os.DirFS("/"), os.Getenv)
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
	// The shell moves itself into the cgroup, then becomes the test binary.
	script := `echo $$ > "$1/cgroup.procs" && exec "$2" -test.run='^TestRealCgroup$'`
	cmd := exec.Command("sh", "-c", script, "sh", dir, os.Args[0])
	cmd.Env = append(os.Environ(), "MEMLIMIT_CHILD=1", "GOMEMLIMIT=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := fmt.Sprintf("limit=%d set=%d runtime=%d", limit, limit*9/10, limit*9/10)
	if !strings.Contains(string(out), want) {
		t.Fatalf("child printed %q, want %q", out, want)
	}
}

// FuzzLimit feeds Limit any /proc/self/cgroup, mountinfo and limit file:
// it must never panic, and a limit it finds is one of the file's.
func FuzzLimit(f *testing.F) {
	f.Add("0::/\n", v2Mounts, "2147483648\n")
	f.Add("4:memory:/process_api/abc\n0::/\n", v1Mounts, "9223372036854771712\n")
	f.Add("4:memory:/docker/x\n", "35 31 0:32 /docker/x /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n", "max")
	f.Add("0::/a/../../b\n", `1 2 3 /\0 /x\04 - cgroup2`, "-1")
	f.Add("0::/\n", v2Mounts, "MemTotal:       24567890 kB\n")
	f.Fuzz(func(t *testing.T, groups, mounts, value string) {
		fsys := files("proc/self/cgroup", groups, "proc/self/mountinfo", mounts,
			"sys/fs/cgroup/memory.max", value, "sys/fs/cgroup/memory/memory.limit_in_bytes", value)
		n, err := Limit(fsys)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := strconv.ParseInt(strings.TrimSpace(value), 10, 64); n != 0 && n != v {
			t.Fatalf("Limit = %d from a file holding %q", n, value)
		}
		if m := machineMemory(files("proc/meminfo", value)); m < 0 {
			t.Fatalf("machineMemory = %d from %q", m, value)
		}
	})
}
