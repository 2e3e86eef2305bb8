package githubactions_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// goreleaser holds the parts of .goreleaser.yaml the action depends on
// (`goreleaser check` validates the whole file in make test).
type goreleaser struct {
	ProjectName string `json:"project_name"`
	Builds      []struct {
		Goos   []string `json:"goos"`
		Goarch []string `json:"goarch"`
	} `json:"builds"`
	Archives []struct {
		Formats      []string `json:"formats"`
		NameTemplate string   `json:"name_template"`
	} `json:"archives"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
	} `json:"checksum"`
}

// The install step downloads bfaudit_<version>_<os>_<arch>.tar.gz and
// checksums.txt, for the runners it maps: the release must make exactly those.
func TestActionFetchesWhatReleasesMake(t *testing.T) {
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var g goreleaser
	if err := yaml.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if g.ProjectName != "bfaudit" || len(g.Archives) != 1 || len(g.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: project %q, %d archives, %d builds", g.ProjectName, len(g.Archives), len(g.Builds))
	}
	if got := g.Archives[0].NameTemplate; got != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" {
		t.Errorf("archive name_template %q: the action expects bfaudit_<version>_<os>_<arch>", got)
	}
	if !slices.Equal(g.Archives[0].Formats, []string{"tar.gz"}) {
		t.Errorf("archive formats %v: the action extracts tar.gz", g.Archives[0].Formats)
	}
	if g.Checksum.NameTemplate != "checksums.txt" {
		t.Errorf("checksum name_template %q: the action verifies checksums.txt", g.Checksum.NameTemplate)
	}
	install := loadAction(t).step(t, "install").Run
	for _, w := range []string{`archive="bfaudit_${ver}_${os}_${arch}.tar.gz"`, "--pattern checksums.txt"} {
		if !strings.Contains(install, w) {
			t.Errorf("the install step no longer has %s", w)
		}
	}
	for _, pair := range [][2]string{{"linux", "Linux) os=linux"}, {"darwin", "macOS) os=darwin"}, {"amd64", "X64) arch=amd64"}, {"arm64", "ARM64) arch=arm64"}} {
		if !slices.Contains(g.Builds[0].Goos, pair[0]) && !slices.Contains(g.Builds[0].Goarch, pair[0]) {
			t.Errorf("releases are not built for %s, which the action installs on", pair[0])
		}
		if !strings.Contains(install, pair[1]) {
			t.Errorf("the install step does not map %s", pair[0])
		}
	}
}
