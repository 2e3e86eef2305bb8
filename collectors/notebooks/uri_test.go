package notebooks

import (
	"testing"

	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a notebook's URI, the inference from a
// finding reads back to the same path, whatever its folders and file name
// hold; an older estate's URI, with a source, reads the same path.
func TestURIRoundTrip(t *testing.T) {
	names := remedytest.HostileNames
	for i, name := range names {
		for _, path := range []string{name + ".ipynb", "team " + names[(i+1)%len(names)] + "/" + name + "/replay.ipynb"} {
			u := uri(path)
			if got, ok := parseURI(u); !ok || got != path {
				t.Errorf("%q read back as %q (%v), want %q", u, got, ok, path)
			}
			old := "notebooks://jupyter.example" + u[len("notebooks://"):]
			if got, ok := parseURI(old); !ok || got != path {
				t.Errorf("older %q read back as %q (%v), want %q", old, got, ok, path)
			}
		}
	}
}
