package remedy

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// A system's examples are its own artifacts, each named once across all
// systems: docs/rules.md would otherwise show a fix on another system's
// artifact, or whichever of two examples the map gave first.
func TestExamplesAreCheckedAtRegistration(t *testing.T) {
	t.Cleanup(func() {
		systemsMu.Lock()
		defer systemsMu.Unlock()
		delete(systems, "toy-a")
	})
	RegisterSystem("toy-a", System{Examples: map[string]model.Artifact{"toy-thing": {System: "toy-a", URI: "toy-a://x/thing"}}})
	if a, ok := ExampleArtifact("toy-thing"); !ok || a.URI != "toy-a://x/thing" {
		t.Fatalf("ExampleArtifact(toy-thing) = %+v, %v", a, ok)
	}
	for _, c := range []struct {
		name string
		sys  System
		want string
	}{
		{"toy-b", System{Examples: map[string]model.Artifact{"toy-thing": {System: "toy-b"}}}, `example "toy-thing" registered twice`},
		{"toy-c", System{Examples: map[string]model.Artifact{"toy-other": {System: "toy-a"}}}, `system "toy-c"'s example "toy-other" is of system "toy-a"`},
	} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), c.want) {
					t.Errorf("registering %s: panic %v, want %q", c.name, p, c.want)
				}
			}()
			RegisterSystem(c.name, c.sys)
		}()
	}
	if _, ok := ExampleArtifact("nothing-of-the-kind"); ok {
		t.Error("an example nobody registered was found")
	}
}
