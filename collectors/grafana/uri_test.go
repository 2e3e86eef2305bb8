package grafana

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a dashboard's or rule's URI, the inference
// from a finding reads back to the same kind and uid, whatever the uid
// holds.
func TestURIRoundTrip(t *testing.T) {
	g := &Grafana{}
	g.env.Source = "grafana.example:3000"
	for _, uid := range remedytest.HostileNames {
		for _, tc := range []struct {
			uri  string
			kind model.Kind
		}{{g.dashboardURI(uid), model.KindDashboard}, {g.ruleURI(uid), model.KindAlert}} {
			if kind, got, ok := parseURI(tc.uri); !ok || kind != tc.kind || got != uid {
				t.Errorf("%q read back as %s %q (%v), want %s %q", tc.uri, kind, got, ok, tc.kind, uid)
			}
		}
	}
}
