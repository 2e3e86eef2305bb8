package awsiam

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

func TestSampleConfigDecodes(t *testing.T) {
	inst := collectortest.DecodeSample(t, "sample.yaml")
	c := inst.Collector.(*Collector)
	if c.Organization == nil || c.Organization.Role != "bfaudit-read" || len(c.Regions) != 1 || c.Timeout <= 0 {
		t.Errorf("sample decoded as %+v", c.Settings)
	}
}

// Bad settings are refused when the config loads, naming the key; with
// no region, IAM's default one is taken.
func TestBadConfig(t *testing.T) {
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "awsiam"})
	for _, tt := range []struct {
		entry map[string]any
		want  string
	}{
		{map[string]any{"type": "awsiam", "regions": []any{"Ireland"}}, "regions[0]"},
		{map[string]any{"type": "awsiam", "accounts": []any{map[string]any{"id": "12345"}}}, "accounts[0].id"},
		{map[string]any{"type": "awsiam", "organization": map[string]any{"exclude": []any{"x"}}}, "organization.role"},
		{map[string]any{"type": "awsiam", "endpoint": "localhost:4566"}, "endpoint"},
		{map[string]any{"type": "awsiam", "acounts": []any{}}, "acounts"},
	} {
		if _, err := collectors.Decode(tt.entry, collectors.Env{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one naming %q", tt.entry, err, tt.want)
		}
	}
	inst, err := collectors.Decode(map[string]any{"type": "awsiam"}, collectors.Env{})
	if err != nil || inst.Collector.(*Collector).Regions[0] != defaultRegion {
		t.Errorf("no region: %v, %+v", err, inst)
	}
}
