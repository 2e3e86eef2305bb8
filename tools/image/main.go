// Command image builds bfaudit's container image with no Docker daemon and no
// base image (`make image` runs it): it builds a static cmd/bfaudit, puts it
// on an empty image with CA certificates and a non-root user, and writes an
// OCI layout directory and a docker-archive tarball.
//
//	go run ./tools/image                      # dist/image/oci and dist/image/bfaudit.tar
//	go run ./tools/image -arch arm64 -repo registry.example.com/platform/bfaudit
//
// Version, commit and date default to git describe, HEAD and the commit's
// time (SOURCE_DATE_EPOCH overrides the date).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/bfaudit/bfaudit/internal/image"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	var (
		dir      = fs.String("C", ".", "the module root")
		out      = fs.String("out", "dist/image", "output directory: OUT/oci (OCI layout) and OUT/bfaudit.tar (docker load)")
		repo     = fs.String("repo", "bfaudit", "image repository the tag is given under")
		arch     = fs.String("arch", runtime.GOARCH, "target architecture (amd64, arm64)")
		certs    = fs.String("ca-certs", "/etc/ssl/certs/ca-certificates.crt", "CA certificate bundle (PEM) to install")
		source   = fs.String("source", "https://github.com/bfaudit/bfaudit", "org.opencontainers.image.source")
		version  = fs.String("version", "", "version (default: git describe --tags --always --dirty)")
		commit   = fs.String("commit", "", "commit (default: git rev-parse HEAD)")
		dateFlag = fs.String("date", "", "build date, RFC 3339 (default: SOURCE_DATE_EPOCH, else the commit's time)")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()

	st := image.FromGit(ctx, *dir)
	if *version != "" {
		st.Version = *version
	}
	if *commit != "" {
		st.Commit = *commit
	}
	date, err := buildDate(*dateFlag, st.Date)
	if err != nil {
		return err
	}
	ref, err := image.Tag(*repo, st.Version)
	if err != nil {
		return err
	}

	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	bin := filepath.Join(*out, "bfaudit-linux-"+*arch)
	absDir, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	absBin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if err := image.GoBuild(ctx, image.Binary{
		ModuleDir: absDir, Out: absBin, OS: "linux", Arch: *arch,
		Version: st.Version, Commit: st.Commit, Date: date.Format(time.RFC3339),
	}); err != nil {
		return err
	}
	img, err := image.Build(image.Options{
		Binary: bin, OS: "linux", Arch: *arch, CACerts: *certs,
		Version: st.Version, Revision: st.Commit, Source: *source, Created: date,
	})
	if err != nil {
		return err
	}
	layoutDir, tarPath := filepath.Join(*out, "oci"), filepath.Join(*out, "bfaudit.tar")
	if err := image.WriteLayout(layoutDir, img, ref); err != nil {
		return err
	}
	if err := image.WriteTarball(tarPath, img, ref); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s@%s (linux/%s)\n  OCI layout: %s\n  tarball:    %s   (docker load -i / podman load -i)\n", ref.String(), digest, *arch, layoutDir, tarPath)
	return nil
}

// buildDate picks the image's time: the flag, else SOURCE_DATE_EPOCH (the
// reproducible-builds convention), else the commit's time, else now.
func buildDate(flagValue string, commitTime time.Time) (time.Time, error) {
	if flagValue != "" {
		t, err := time.Parse(time.RFC3339, flagValue)
		if err != nil {
			return time.Time{}, fmt.Errorf("-date: %q is not RFC 3339 (2026-11-30T09:00:00Z)", flagValue)
		}
		return t.UTC(), nil
	}
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH: %q is not a number of seconds", s)
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	if !commitTime.IsZero() {
		return commitTime, nil
	}
	return time.Now().UTC().Truncate(time.Second), nil
}
