package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Release builds set these with -ldflags
// "-X main.version=v1.2.3 -X main.commit=<sha> -X main.date=<RFC 3339>"
// (.goreleaser.yaml, make image). Left empty, the Go toolchain's own build
// stamp fills them in: the module version for `go install ...@v1.2.3`, and
// the VCS revision and time for `go build` in a clone.
var (
	version string
	commit  string
	date    string
)

// buildStamp is what `bfaudit version` prints.
type buildStamp struct {
	Version  string
	Commit   string
	Date     string
	Modified bool // built from a work tree with uncommitted changes
}

// stamp merges the -ldflags values with the toolchain's build info; a value
// set at link time wins, since a release pipeline knows its tag even when the
// toolchain only sees a commit.
func stamp(version, commit, date string, bi *debug.BuildInfo) buildStamp {
	s := buildStamp{Version: version, Commit: commit, Date: date}
	if bi != nil {
		if s.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			s.Version = bi.Main.Version
		}
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				if s.Commit == "" {
					s.Commit = kv.Value
				}
			case "vcs.time":
				if s.Date == "" {
					s.Date = kv.Value
				}
			case "vcs.modified":
				s.Modified = kv.Value == "true"
			}
		}
	}
	if s.Version == "" {
		s.Version = "dev"
	}
	return s
}

func (s buildStamp) write(w io.Writer) {
	fmt.Fprintf(w, "bfaudit %s\n", s.Version)
	if s.Commit != "" {
		c := s.Commit
		if s.Modified {
			c += " (modified)"
		}
		fmt.Fprintf(w, "commit  %s\n", c)
	}
	if s.Date != "" {
		fmt.Fprintf(w, "date    %s\n", s.Date)
	}
	fmt.Fprintf(w, "go      %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Long: `Print the version, the commit it was built from and when.

Release builds carry the release tag; a go install of a tagged version
carries that tag; a go build in a clone carries the commit, its time, and
"(modified)" when the work tree had uncommitted changes.`,
		Args: cobra.NoArgs,
		Run: func(*cobra.Command, []string) {
			bi, _ := debug.ReadBuildInfo()
			stamp(version, commit, date, bi).write(g.stdout)
		},
	}
}
