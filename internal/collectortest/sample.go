// Package collectortest holds helpers for collectors' own tests.
package collectortest

import (
	"os"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
)

// DecodeSample reads a collector's sample.yaml (one sources entry), decodes
// it as the config loader would and checks that SampleConfig returns the
// same text. It returns the instance for the caller's own checks.
func DecodeSample(t *testing.T, path string) collectors.Instance {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []map[string]any
	if err := yaml.Unmarshal(raw, &entries); err != nil || len(entries) != 1 {
		t.Fatalf("%s: %v (%d entries, want 1)", path, err, len(entries))
	}
	inst, err := collectors.Decode(entries[0], correlate.MustSelector())
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	if s, ok := inst.Collector.(collectors.SampleConfigurer); !ok || s.SampleConfig() != string(raw) {
		t.Errorf("SampleConfig does not return %s", path)
	}
	return inst
}
