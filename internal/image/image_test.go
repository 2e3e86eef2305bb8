package image

import (
	"archive/tar"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

const fakePEM = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"

var created = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// The image as `make image` builds it: the real cmd/bfaudit, static, with the
// version stamped; read back from both outputs, its config is what a
// container runtime will run, and the binary inside answers `version`.
func TestImageRunsVersion(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image's binary is for linux; this test runs it")
	}
	ctx, cancel := BuildContext(t)
	defer cancel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bfaudit")
	const version, commit = "v1.2.3", "0123456789abcdef0123456789abcdef01234567"
	if err := GoBuild(ctx, Binary{
		ModuleDir: moduleRoot(t), Out: bin, OS: "linux", Arch: runtime.GOARCH,
		Version: version, Commit: commit, Date: created.Format(time.RFC3339),
	}); err != nil {
		t.Fatal(err)
	}
	img, err := Build(Options{
		Binary: bin, OS: "linux", Arch: runtime.GOARCH, CACerts: caBundle(t),
		Version: version, Revision: commit, Source: "https://github.com/bfaudit/bfaudit", Created: created,
	})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Tag("bfaudit", version)
	if err != nil {
		t.Fatal(err)
	}
	layoutDir, tarPath := filepath.Join(dir, "oci"), filepath.Join(dir, "bfaudit.tar")
	if err := WriteLayout(layoutDir, img, ref); err != nil {
		t.Fatal(err)
	}
	if err := WriteTarball(tarPath, img, ref); err != nil {
		t.Fatal(err)
	}

	fromLayout := readLayout(t, layoutDir, "v1.2.3")
	fromTar, err := tarball.ImageFromPath(tarPath, &ref)
	if err != nil {
		t.Fatalf("the tarball does not load as %s: %v", ref, err)
	}
	want, _ := img.Digest()
	for name, got := range map[string]v1.Image{"layout": fromLayout, "tarball": fromTar} {
		d, err := got.ConfigName()
		if err != nil {
			t.Fatal(err)
		}
		if wd, _ := img.ConfigName(); d != wd {
			t.Errorf("%s: config %s, built %s", name, d, wd)
		}
	}
	if d, _ := fromLayout.Digest(); d != want {
		t.Errorf("layout holds manifest %s, built %s", d, want)
	}

	cf, err := fromLayout.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cf.Config.Entrypoint, " "); got != BinaryPath {
		t.Errorf("entrypoint %q, want %q", got, BinaryPath)
	}
	if cf.Config.User != "65532:65532" {
		t.Errorf("user %q: the image must run as the non-root uid 65532", cf.Config.User)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s", cf.OS, cf.Architecture)
	}
	for k, v := range map[string]string{
		LabelVersion: version, LabelRevision: commit,
		LabelSource: "https://github.com/bfaudit/bfaudit", LabelCreated: "2026-11-30T09:00:00Z",
	} {
		if cf.Config.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, cf.Config.Labels[k], v)
		}
	}

	files := extract(t, fromTar, dir)
	for _, p := range []string{"etc/passwd", "etc/group", "etc/ssl/certs/ca-certificates.crt", "usr/local/bin/bfaudit", "tmp", "home/nonroot"} {
		if _, ok := files[p]; !ok {
			t.Errorf("image lacks /%s", p)
		}
	}
	if !strings.Contains(files["etc/passwd"].body, "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd has no line for uid 65532:\n%s", files["etc/passwd"].body)
	}
	if h := files["home/nonroot"].hdr; h.Uid != UID {
		t.Errorf("/home/nonroot is owned by %d, want %d", h.Uid, UID)
	}
	if m := files["usr/local/bin/bfaudit"].hdr.Mode; m&0o111 == 0 {
		t.Errorf("/usr/local/bin/bfaudit mode %o is not executable", m)
	}

	inside := filepath.Join(dir, "extracted-bfaudit")
	info, err := buildinfo.ReadFile(inside)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" || settings["-tags"] != "timetzdata" {
		t.Errorf("binary built with CGO_ENABLED=%q -tags=%q, want a static binary with embedded tzdata", settings["CGO_ENABLED"], settings["-tags"])
	}
	out, err := exec.CommandContext(ctx, inside, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("bfaudit version from the image: %v\n%s", err, out)
	}
	for _, w := range []string{"bfaudit v1.2.3\n", "commit  " + commit + "\n", "date    2026-11-30T09:00:00Z\n"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("version from the image lacks %q:\n%s", w, out)
		}
	}
}

type tarFile struct {
	hdr  tar.Header
	body string
}

// extract reads the image's flattened filesystem and writes its binary to
// dir/extracted-bfaudit.
func extract(t *testing.T, img v1.Image, dir string) map[string]tarFile {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	files := map[string]tarFile{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		files[name] = tarFile{hdr: *h}
		if name == "etc/passwd" {
			files[name] = tarFile{hdr: *h, body: string(b)}
		}
		if name == "usr/local/bin/bfaudit" {
			if err := os.WriteFile(filepath.Join(dir, "extracted-bfaudit"), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return files
}

// readLayout finds the image named tag in an OCI layout, as skopeo's
// oci:DIR:TAG would.
func readLayout(t *testing.T, dir, tag string) v1.Image {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Manifests {
		if d.Annotations[RefNameAnnotation] == tag {
			img, err := idx.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	raw, _ := json.Marshal(m)
	t.Fatalf("no image named %q in the layout: %s", tag, raw)
	return nil
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	return root
}

// caBundle is the machine's bundle when it has one (what make image uses),
// else a stand-in: the test is about the image, not the certificates.
func caBundle(t *testing.T) string {
	const system = "/etc/ssl/certs/ca-certificates.crt"
	if st, err := os.Stat(system); err == nil && st.Mode().IsRegular() {
		return system
	}
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, []byte(fakePEM), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
