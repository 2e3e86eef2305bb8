package flagd

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a flag's URI, the commands and the
// inference from a finding read back to the same file, flag and resource,
// for every shape and whatever the names hold.
func TestURIRoundTrip(t *testing.T) {
	var names []string // a file, flag and resource each have a name
	for _, n := range remedytest.HostileNames {
		if n != "" {
			names = append(names, n)
		}
	}
	for i, flag := range names {
		a, b, c := names[(i+1)%len(names)], names[(i+2)%len(names)], names[(i+3)%len(names)]
		for _, file := range []string{"flags/" + a + ".json", "/etc/flagd/" + a + "/" + b + ".yaml", a} {
			for _, tc := range []struct {
				uri      string
				resource []string
			}{
				{URI("flagd", file, flag), nil},
				{ResourceURI("flagd", file, &Resource{Namespace: b, Name: c}, "", flag), []string{b, c}},
				{ResourceURI("flagd", file, &Resource{Name: b}, c, flag), []string{b, c}},
			} {
				got, ok := ParseFlagd(&model.Artifact{URI: tc.uri})
				want := FlagdEntry{File: file, Flag: flag, Resource: strings.Join(tc.resource, "/")}
				if !ok || got != want {
					t.Errorf("%q read back as %+v (%v), want %+v", tc.uri, got, ok, want)
				}
			}
		}
	}
	for _, uri := range []string{URI("flagd", "flags.json", ""), URI("flagd", "", "flag")} {
		if got, ok := ParseFlagd(&model.Artifact{URI: uri}); ok {
			t.Errorf("%q, without a flag or a file, read as %+v", uri, got)
		}
	}
}
