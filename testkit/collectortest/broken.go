package collectortest

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// CollectBroken runs c, one of whose units (unit) is a hostile server, and
// checks what every hostile-server case asks of a collector: Collect ends
// within 20s, does not fail the whole source, records errors only at or
// under unit, says want, and leaks neither the canary token nor the
// server's page. The sink is returned for the case's own checks.
func CollectBroken(t *testing.T, c collectors.Collector, unit, want string) *collectors.TestSink {
	t.Helper()
	sink, err := Collect(t, c)
	if err != nil {
		t.Fatalf("Collect: %v (only one unit was broken)", err)
	}
	var texts []string
	for _, e := range sink.Errors {
		texts = append(texts, e.Error)
		if !model.ScopeWithin(e.Scope, unit) {
			t.Errorf("error outside the broken unit %s: %s: %s", unit, e.Scope, e.Error)
		}
	}
	if len(texts) == 0 {
		t.Errorf("no error recorded at %s", unit)
	}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, want) {
		t.Errorf("errors %q; want %q", joined, want)
	}
	if strings.Contains(joined, hostile.Canary) || strings.Contains(joined, "<html") {
		t.Errorf("error text leaks the answer: %q", joined)
	}
	return sink
}
