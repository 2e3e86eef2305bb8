package image

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Binary describes one build of cmd/bfaudit.
type Binary struct {
	ModuleDir string // the module root (holds go.mod)
	Out       string // the binary to write
	OS, Arch  string
	// Stamped with -ldflags -X (see cmd/bfaudit/version.go); empty ones are
	// left to the toolchain's build info.
	Version, Commit, Date string
	// BuildVCS stamps the VCS revision into the binary (-buildvcs=true),
	// what a plain `go build` in a clone does unless GOFLAGS turns it off.
	BuildVCS bool
}

// BuildFlags are the go build flags of every bfaudit release binary, the
// image's and goreleaser's alike: static (CGO_ENABLED=0, the SQLite driver
// is pure Go), reproducible (-trimpath), with the time zone database
// embedded (timetzdata; see the package comment).
var BuildFlags = []string{"-trimpath", "-tags", "timetzdata"}

// LDFlags returns the -ldflags value that stamps version, commit and date.
func LDFlags(version, commit, date string) string {
	f := []string{"-s", "-w"}
	for _, kv := range [][2]string{{"version", version}, {"commit", commit}, {"date", date}} {
		if kv[1] != "" {
			f = append(f, "-X", "main."+kv[0]+"="+kv[1])
		}
	}
	return strings.Join(f, " ")
}

// GoBuild builds cmd/bfaudit as a static binary for b.OS/b.Arch.
func GoBuild(ctx context.Context, b Binary) error {
	for _, v := range []string{b.Version, b.Commit, b.Date} {
		if strings.ContainsAny(v, " \t\n'\"") {
			return fmt.Errorf("image: build: %q: version, commit and date cannot hold spaces or quotes", v)
		}
	}
	args := append([]string{"build"}, BuildFlags...)
	vcs := "-buildvcs=false"
	if b.BuildVCS {
		vcs = "-buildvcs=true"
	}
	args = append(args, vcs, "-ldflags", LDFlags(b.Version, b.Commit, b.Date), "-o", b.Out, "./cmd/bfaudit")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = b.ModuleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+b.OS, "GOARCH="+b.Arch)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("image: go %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return nil
}

// BuildContext bounds a test's go build by the test's own deadline, less a
// margin to report, so a build that cannot finish (the first one compiles
// every dependency without -race) fails with its output instead of the test
// binary's timeout panic.
func BuildContext(t interface{ Deadline() (time.Time, bool) }) (context.Context, context.CancelFunc) {
	if d, ok := t.Deadline(); ok {
		return context.WithDeadline(context.Background(), d.Add(-30*time.Second))
	}
	return context.WithCancel(context.Background())
}
