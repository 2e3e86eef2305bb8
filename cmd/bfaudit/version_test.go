package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/internal/image"
)

func TestStamp(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  buildStamp
	}{
		{"release build: ldflags win over the toolchain's stamp",
			"v1.2.3", "abc123", "2026-11-30T09:00:00Z",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130090000-abc123abc123"}, Settings: vcs("abc123abc123", "2026-11-29T00:00:00Z", "false")},
			buildStamp{Version: "v1.2.3", Commit: "abc123", Date: "2026-11-30T09:00:00Z"}},
		{"go install of a tag: the module version, no VCS data",
			"", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			buildStamp{Version: "v1.4.0"}},
		{"go build in a dirty clone",
			"", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130090000-0123456789ab+dirty"}, Settings: vcs("0123456789abcdef", "2026-11-30T09:00:00Z", "true")},
			buildStamp{Version: "v0.0.0-20261130090000-0123456789ab+dirty", Commit: "0123456789abcdef", Date: "2026-11-30T09:00:00Z", Modified: true}},
		{"go build with -buildvcs=false", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			buildStamp{Version: "dev"}},
		{"no build info", "", "", "", nil, buildStamp{Version: "dev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stamp(tc.version, tc.commit, tc.date, tc.bi); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestVersionPrintsLinkTimeStamp(t *testing.T) {
	old := [3]string{version, commit, date}
	t.Cleanup(func() { version, commit, date = old[0], old[1], old[2] })
	version, commit, date = "v9.8.7", "feedface", "2026-11-30T09:00:00Z"
	code, out, _ := bfaudit(t, "version")
	want := "bfaudit v9.8.7\ncommit  feedface\ndate    2026-11-30T09:00:00Z\ngo      " + runtime.Version()
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("exit %d, output:\n%s\nwant it to start with:\n%s", code, out, want)
	}
}

// A plain `go build` in a clone, no -ldflags: the binary reports the commit
// it was built from, read from the toolchain's VCS stamp.
func TestVersionOfPlainBuildInClone(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (or no git): %v; the VCS stamp needs one", err)
	}
	ctx, cancel := image.BuildContext(t)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "bfaudit")
	// The same flags as the image's build, so the two tests share the build
	// cache; only BuildVCS differs from a release build (and no -X values).
	if err := image.GoBuild(ctx, image.Binary{ModuleDir: root, Out: bin, OS: runtime.GOOS, Arch: runtime.GOARCH, BuildVCS: true}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "commit  "+strings.TrimSpace(string(head))) || !strings.HasPrefix(lines[2], "date    ") {
		t.Errorf("version of a go build in a clone lacks the commit %s and its date:\n%s", head, out)
	}
	if strings.HasPrefix(lines[0], "bfaudit dev") {
		t.Errorf("version of a go build in a clone is still dev:\n%s", out)
	}
}
