package unleash

import (
	"testing"

	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a flag's URI, the remedy and the fix action
// read back to the same project and name, whatever the names hold.
func TestFlagURIRoundTrip(t *testing.T) {
	for _, project := range remedytest.HostileNames {
		for _, name := range remedytest.HostileNames {
			uri := flagURI("unleash.example:4242", project, name)
			p, n, ok := ParseUnleashFlag(uri)
			if project == "" || name == "" {
				if ok {
					t.Errorf("%q read as a flag (%q, %q), but it has an empty part", uri, p, n)
				}
				continue
			}
			if !ok || p != project || n != name {
				t.Errorf("%q read back as (%q, %q, %v), want (%q, %q)", uri, p, n, ok, project, name)
			}
		}
	}
}
