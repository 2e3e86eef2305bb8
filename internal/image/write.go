package image

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// RefNameAnnotation names an image inside an OCI layout (what skopeo's
// oci:DIR:NAME and crane's --layout read).
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout writes img as the only image of an OCI layout directory,
// replacing a layout already there. It refuses to clear a directory that
// holds anything but an OCI layout, so a mistyped path loses nothing.
func WriteLayout(dir string, img v1.Image, ref name.Tag) error {
	if err := clearLayout(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("image: OCI layout %s: %w", dir, err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{RefNameAnnotation: ref.TagStr()})); err != nil {
		return fmt.Errorf("image: OCI layout %s: %w", dir, err)
	}
	return nil
}

func clearLayout(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(entries) == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("image: OCI layout %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
		return fmt.Errorf("image: OCI layout %s: the directory is not empty and holds no oci-layout file; refusing to replace it", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("image: OCI layout %s: %w", dir, err)
	}
	return nil
}

// WriteTarball writes img as a docker-archive tarball tagged ref: what
// `docker load -i` and `podman load -i` read.
func WriteTarball(path string, img v1.Image, ref name.Tag) error {
	if err := tarball.WriteToFile(path, ref, img); err != nil {
		return fmt.Errorf("image: tarball %s: %w", path, err)
	}
	return nil
}

var notInTag = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// Tag turns repo and a version into an image reference. A version string may
// hold characters a tag cannot (a Go pseudo-version's "+dirty"); they become
// "-", and a tag is cut at 128 characters as the registry API requires.
func Tag(repo, version string) (name.Tag, error) {
	t := notInTag.ReplaceAllString(version, "-")
	if t == "" || t[0] == '.' || t[0] == '-' {
		t = "v" + t
	}
	if len(t) > 128 {
		t = t[:128]
	}
	ref, err := name.NewTag(repo+":"+t, name.WeakValidation)
	if err != nil {
		return name.Tag{}, fmt.Errorf("image: tag %q: %w", repo+":"+t, err)
	}
	return ref, nil
}
