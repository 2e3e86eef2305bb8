package image

import (
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// Release archives and the image carry the same binary: static, with the
// same build flags, and stamped through the variables cmd/bfaudit reads.
func TestReleaseBuildMatchesImageBuild(t *testing.T) {
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Builds []struct {
			Main    string   `json:"main"`
			Env     []string `json:"env"`
			Flags   []string `json:"flags"`
			Tags    []string `json:"tags"`
			LDFlags []string `json:"ldflags"`
		} `json:"builds"`
	}
	if err := yaml.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Builds) != 1 {
		t.Fatalf("%d builds, want 1", len(g.Builds))
	}
	b := g.Builds[0]
	if b.Main != "./cmd/bfaudit" || !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Errorf("build main %q env %v: want ./cmd/bfaudit with CGO_ENABLED=0", b.Main, b.Env)
	}
	var flags []string
	flags = append(flags, b.Flags...)
	if len(b.Tags) > 0 {
		flags = append(flags, "-tags", strings.Join(b.Tags, ","))
	}
	if !slices.Equal(flags, BuildFlags) {
		t.Errorf("goreleaser builds with %v, the image with %v", flags, BuildFlags)
	}
	ld := strings.Join(b.LDFlags, " ")
	for _, v := range []string{"-X main.version=v{{ .Version }}", "-X main.commit={{ .FullCommit }}", "-X main.date={{ .CommitDate }}"} {
		if !strings.Contains(ld, v) {
			t.Errorf("ldflags %q lack %q (cmd/bfaudit/version.go)", ld, v)
		}
	}
}
