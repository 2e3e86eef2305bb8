package prometheus

import (
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a rule's URI splits back into the same
// parts, for every shape and whatever the names hold (every hostile name
// in every part, beside others); a second rule of a name keeps its parts
// and ends in #2.
func TestURIRoundTrip(t *testing.T) {
	p := &Prometheus{}
	p.env.Source = "prom.example:9090"
	names := remedytest.HostileNames
	for i, a := range names {
		b, c, d := names[(i+1)%len(names)], names[(i+2)%len(names)], names[(i+3)%len(names)]
		path := "rules/" + b + "/" + c + ".yml"
		for _, tc := range []struct {
			group string
			parts []string
		}{
			{p.serverGroupURI(a, b), []string{"rules", orDash(a), orDash(b)}},
			{groupURI(p.fileURI(path), a), []string{"files", "rules", b, c + ".yml", a}},
			{groupURI(p.fileObjectURI(path, a, b), c), []string{"files", "rules", b, c + ".yml", orDash(a), b, c}},
			{groupURI(p.clusterObjectURI(a, b), c), []string{"prometheusrules", a, b, c}},
		} {
			for n, kind := range map[int]string{1: typeAlerting, 2: typeRecording} {
				uri := ruleURI(tc.group, kind, d, n)
				want := append(slices.Clone(tc.parts), kindSegment(kind), d)
				if segs, ok := model.URISegments(uri, "prometheus"); !ok || !slices.Equal(segs, want) || strings.HasSuffix(uri, "#2") != (n == 2) {
					t.Errorf("%q read back as %q (%v), want %q", uri, segs, ok, want)
				}
			}
		}
	}
}
