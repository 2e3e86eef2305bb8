package image

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fakeInputs(t *testing.T) (bin, certs string) {
	t.Helper()
	dir := t.TempDir()
	bin, certs = filepath.Join(dir, "bfaudit"), filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho fake\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certs, []byte(fakePEM), 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, certs
}

// Rebuilding the same commit gives the same image digest, so a registry
// does not gain a new image per rebuild and a digest can be checked.
func TestBuildIsReproducible(t *testing.T) {
	bin, certs := fakeInputs(t)
	o := Options{Binary: bin, OS: "linux", Arch: "amd64", CACerts: certs, Version: "v1.0.0", Revision: "abc", Created: created}
	var digests []string
	for range 2 {
		img, err := Build(o)
		if err != nil {
			t.Fatal(err)
		}
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, d.String())
	}
	if digests[0] != digests[1] {
		t.Errorf("two builds of the same inputs: %s and %s", digests[0], digests[1])
	}
	o.Version = "v1.0.1"
	img, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := img.Digest(); d.String() == digests[0] {
		t.Error("a different version label gave the same digest")
	}
}

func TestBuildRefusesBadInputs(t *testing.T) {
	bin, certs := fakeInputs(t)
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"missing binary", Options{Binary: filepath.Join(dir, "nope"), OS: "linux", Arch: "amd64", CACerts: certs}, "binary"},
		{"binary is a directory", Options{Binary: dir, OS: "linux", Arch: "amd64", CACerts: certs}, "not a regular file"},
		{"certificates not PEM", Options{Binary: bin, OS: "linux", Arch: "amd64", CACerts: notPEM}, "no PEM certificate"},
		{"no platform", Options{Binary: bin, CACerts: certs}, "required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// A mistyped -out must not wipe a directory of other things; an old layout
// is replaced.
func TestWriteLayoutReplacesOnlyALayout(t *testing.T) {
	bin, certs := fakeInputs(t)
	img, err := Build(Options{Binary: bin, OS: "linux", Arch: "amd64", CACerts: certs, Version: "v1", Created: created})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := Tag("bfaudit", "v1")
	dir := t.TempDir()
	keep := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(dir, img, ref); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("err = %v, want a refusal", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the directory's file is gone: %v", err)
	}

	out := filepath.Join(t.TempDir(), "oci")
	for range 2 {
		if err := WriteLayout(out, img, ref); err != nil {
			t.Fatal(err)
		}
	}
	readLayout(t, out, "v1")
}

func TestTag(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3":        "bfaudit:v1.2.3",
		"9558e18-dirty": "bfaudit:9558e18-dirty",
		"v0.0.0-20261130090000-0123456789ab+dirty": "bfaudit:v0.0.0-20261130090000-0123456789ab-dirty",
		"":                       "bfaudit:v",
		".hidden":                "bfaudit:v.hidden",
		strings.Repeat("x", 200): "bfaudit:" + strings.Repeat("x", 128),
		"v1/with space":          "bfaudit:v1-with-space",
	} {
		ref, err := Tag("bfaudit", in)
		if err != nil {
			t.Errorf("Tag(%q): %v", in, err)
			continue
		}
		if got := ref.Name(); got != "index.docker.io/library/"+want && got != want {
			t.Errorf("Tag(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestLDFlags(t *testing.T) {
	got := LDFlags("v1.2.3", "abc", "")
	if got != "-s -w -X main.version=v1.2.3 -X main.commit=abc" {
		t.Errorf("LDFlags = %q", got)
	}
}
