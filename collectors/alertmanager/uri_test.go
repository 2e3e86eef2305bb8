package alertmanager

import (
	"testing"

	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a silence's URI, the commands read back to
// the same id, whatever it holds.
func TestSilenceURIRoundTrip(t *testing.T) {
	a := &Alertmanager{}
	a.env.Source = "am.example:9093"
	for _, id := range remedytest.HostileNames {
		uri := a.uri(id)
		if got, ok := parseSilenceURI(uri); !ok || got != id {
			t.Errorf("%q read back as %q (%v), want %q", uri, got, ok, id)
		}
	}
}
