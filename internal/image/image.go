// Package image builds bfaudit's container image without a Docker daemon or
// a base image to pull: a static binary, CA certificates and a passwd entry
// for a non-root user, on an empty image, written with go-containerregistry
// as an OCI layout directory and as a tarball `docker load` and `podman load`
// accept.
//
// Time zones come from the Go toolchain's embedded tzdata (the binary is
// built with -tags timetzdata, see GoBuild), not from /usr/share/zoneinfo:
// the image then carries the same zone rules as the release archives, which
// may run on hosts without tzdata, and the image does not change with the
// build machine's tzdata package.
//
// Why not goreleaser's kos builder (github.com/google/ko underneath)? It
// was tried: goreleaser v2.15.1 (the Makefile's pin, built through the Go
// module proxy) with a kos entry for cmd/bfaudit carrying this image's
// user (65532), labels and creation time, run as `goreleaser release
// --snapshot`. It built the binary, then failed:
//
//	ko: build: fetching base image: Get "https://cgr.dev/v2/": dial tcp:
//	lookup cgr.dev: no such host
//
// and would not pass this package's tests with a network either:
//   - ko builds no base: it starts from an image pulled from a registry
//     (cgr.dev/chainguard/static:latest by default, which changes under a
//     rebuild of the same commit) or read from a Docker daemon, so the CA
//     certificates and the passwd entry of the non-root user would still
//     be built here and pushed somewhere ko can read them;
//   - it writes no image file: a snapshot is loaded into a Docker daemon
//     and a release is pushed to a registry, where `make image` writes an
//     OCI layout and a tarball with neither;
//   - the binary and entrypoint are /ko-app/bfaudit, not BinaryPath, which
//     docs/deploy.md and the Kubernetes manifests' test rely on, and every
//     image gets a kodata layer and KO_DATA_PATH.
//
// What ko would save, appending the layers and the config, is already
// go-containerregistry's, the library ko uses for it.
package image

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where things are inside the image.
const (
	BinaryPath  = "/usr/local/bin/bfaudit"
	CACertsPath = "/etc/ssl/certs/ca-certificates.crt"
	// UID and GID of the user the image runs as; 65532 is the "nonroot" user
	// of distroless images, so policies written for those fit this one.
	UID  = 65532
	Home = "/home/nonroot"
)

// OCI annotation keys used as labels.
const (
	LabelVersion  = "org.opencontainers.image.version"
	LabelRevision = "org.opencontainers.image.revision"
	LabelSource   = "org.opencontainers.image.source"
	LabelCreated  = "org.opencontainers.image.created"
	LabelTitle    = "org.opencontainers.image.title"
)

// Options describe one image.
type Options struct {
	Binary   string // a static bfaudit binary for OS/Arch
	OS, Arch string // the binary's platform, e.g. linux, amd64
	CACerts  string // PEM bundle to install, e.g. /etc/ssl/certs/ca-certificates.crt
	Version  string
	Revision string    // the commit
	Source   string    // the repository URL
	Created  time.Time // image and file times; the commit's time keeps a rebuild identical
}

// Build assembles the image: a base layer (passwd, group, CA certificates,
// home and /tmp) and a layer with the binary, so a new release changes only
// the second.
func Build(o Options) (v1.Image, error) {
	if o.Binary == "" || o.OS == "" || o.Arch == "" || o.CACerts == "" {
		return nil, errors.New("image: binary, OS, arch and CA certificates are required")
	}
	bin, err := readRegular(o.Binary, "binary")
	if err != nil {
		return nil, err
	}
	certs, err := readRegular(o.CACerts, "CA certificates")
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(certs, []byte("-----BEGIN CERTIFICATE-----")) {
		return nil, fmt.Errorf("image: CA certificates %s: no PEM certificate in it", o.CACerts)
	}
	created := o.Created.UTC().Truncate(time.Second)

	base, err := layer(created, []entry{
		dir("etc/", 0o755, 0),
		file("etc/passwd", 0o644, 0, []byte(fmt.Sprintf(
			"root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", UID, UID, Home))),
		file("etc/group", 0o644, 0, []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", UID))),
		dir("etc/ssl/", 0o755, 0),
		dir("etc/ssl/certs/", 0o755, 0),
		file(CACertsPath[1:], 0o644, 0, certs),
		dir("home/", 0o755, 0),
		dir(Home[1:]+"/", 0o700, UID),
		// SQLite and os.CreateTemp write here when no volume is mounted.
		dir("tmp/", 0o1777, 0),
	})
	if err != nil {
		return nil, err
	}
	app, err := layer(created, []entry{
		dir("usr/", 0o755, 0),
		dir("usr/local/", 0o755, 0),
		dir("usr/local/bin/", 0o755, 0),
		file(BinaryPath[1:], 0o755, 0, bin),
	})
	if err != nil {
		return nil, err
	}

	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "bfaudit image: passwd, group, CA certificates"}},
		mutate.Addendum{Layer: app, History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "bfaudit image: " + BinaryPath}},
	)
	if err != nil {
		return nil, fmt.Errorf("image: append layers: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image: config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = o.OS, o.Arch
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		Entrypoint: []string{BinaryPath},
		User:       fmt.Sprintf("%d:%d", UID, UID),
		WorkingDir: Home,
		Env: []string{
			"PATH=/usr/local/bin",
			"HOME=" + Home,
			"SSL_CERT_FILE=" + CACertsPath,
		},
		Labels: map[string]string{
			LabelTitle:    "bfaudit",
			LabelVersion:  o.Version,
			LabelRevision: o.Revision,
			LabelSource:   o.Source,
			LabelCreated:  created.Format(time.RFC3339),
		},
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("image: set config: %w", err)
	}
	return img, nil
}

// readRegular reads a build input, refusing what is not a regular file (a
// directory given by mistake, a device).
func readRegular(path, what string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("image: %s: %w", what, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("image: %s %s: not a regular file", what, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("image: %s: %w", what, err)
	}
	return b, nil
}

type entry struct {
	hdr  tar.Header
	body []byte
}

func dir(name string, mode int64, owner int) entry {
	return entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: owner, Gid: owner}}
}

func file(name string, mode int64, owner int, body []byte) entry {
	return entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Uid: owner, Gid: owner, Size: int64(len(body))}, body: body}
}

// layer writes the entries as an OCI layer with fixed times, so the same
// inputs give the same digest.
func layer(created time.Time, entries []entry) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		h.ModTime = created
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			return nil, fmt.Errorf("image: layer %s: %w", h.Name, err)
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, fmt.Errorf("image: layer %s: %w", h.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("image: layer: %w", err)
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
