package image

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// Stamp is what a build records about its source.
type Stamp struct {
	Version string    // git describe: the tag, or the short commit when there is none; "-dirty" with local changes
	Commit  string    // the full commit hash
	Date    time.Time // the commit's time: rebuilding a commit gives the same image
}

// FromGit reads the stamp of the work tree at dir. Outside a git checkout
// (a source archive) it returns version "dev", no commit and the zero time,
// and the caller picks a date.
func FromGit(ctx context.Context, dir string) Stamp {
	s := Stamp{Version: "dev"}
	if v := git(ctx, dir, "describe", "--tags", "--always", "--dirty"); v != "" {
		s.Version = v
	}
	s.Commit = git(ctx, dir, "rev-parse", "HEAD")
	if t, err := time.Parse(time.RFC3339, git(ctx, dir, "log", "-1", "--format=%cI")); err == nil {
		s.Date = t.UTC()
	}
	return s
}

func git(ctx context.Context, dir string, args ...string) string {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
