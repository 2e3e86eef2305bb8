// Package collectortest holds helpers for collectors' own tests.
package collectortest

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

// DecodeSample reads a collector's sample.yaml (one sources entry), decodes
// it as the config loader would and checks that the collector type was
// registered with the same text. It returns the instance for the caller's own checks.
func DecodeSample(t *testing.T, path string) collectors.Instance {
	t.Helper()
	raw, err := safefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []map[string]any
	if err := yaml.Unmarshal(raw, &entries); err != nil || len(entries) != 1 {
		t.Fatalf("%s: %v (%d entries, want 1)", path, err, len(entries))
	}
	inst, err := collectors.Decode(entries[0], collectors.Env{})
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	if collectors.Sample(inst.Type) != string(raw) {
		t.Errorf("%s is not the sample %q was registered with", path, inst.Type)
	}
	return inst
}

// RejectsBadTimeouts decodes entry (one sources entry, valid as given)
// with `timeout` set to 0 and to a negative duration, and fails unless
// both are refused with a message naming the key: a call without a
// deadline can hang the audit.
func RejectsBadTimeouts(t *testing.T, entry map[string]any) {
	t.Helper()
	for _, bad := range []any{"0s", 0, "-5s"} {
		e := make(map[string]any, len(entry)+1)
		for k, v := range entry {
			e[k] = v
		}
		e["timeout"] = bad
		_, err := collectors.Decode(e, collectors.Env{})
		if err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("timeout: %v accepted (err %v); want it refused, naming the key", bad, err)
		}
	}
}
