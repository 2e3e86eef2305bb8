package pushgateway

import (
	"encoding/base64"
	"maps"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// labelsOf reads a key path as the Pushgateway reads the path of a
// request: name/value pairs, a name@base64 value in base64url.
func labelsOf(t *testing.T, path string) map[string]string {
	t.Helper()
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	out := map[string]string{}
	for i := 0; i+1 < len(segs); i += 2 {
		name, v := segs[i], segs[i+1]
		if n, ok := strings.CutSuffix(name, "@base64"); ok {
			b, err := base64.RawURLEncoding.DecodeString(strings.TrimSuffix(v, "="))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			name, v = n, string(b)
		}
		out[name] = v
	}
	return out
}

// What the collector writes into a URI, the remedy and the fix read back,
// and the Pushgateway reads as the same grouping key, whatever the values.
func TestKeyPathRoundTrip(t *testing.T) {
	for _, c := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"job": "bf_1234_replay", "backfill_id": "BF-1234"}, "/job/bf_1234_replay/backfill_id/BF-1234"},
		{map[string]string{"job": "replay", "path": "exports/2026", "empty": ""}, "/job/replay/empty@base64/=/path@base64/ZXhwb3J0cy8yMDI2"},
		{map[string]string{"job": "..", "z": "1", "a": "."}, "/job@base64/Li4/a@base64/Lg/z/1"},
	} {
		if got := keyPath(c.labels); got != c.want {
			t.Errorf("keyPath(%v) = %s, want %s", c.labels, got, c.want)
		}
	}
	for _, name := range remedytest.HostileNames {
		labels := map[string]string{"job": "j" + name, "backfill_id": "BF-1", "note": name}
		uri := "pushgateway://pg" + keyPath(labels)
		got, ok := keyPathOf(uri)
		if !ok || got != keyPath(labels) || !maps.Equal(labelsOf(t, got), labels) {
			t.Errorf("%q: %s read back as %s, %v", name, uri, got, ok)
		}
	}
}

// A URI that is not one the collector writes puts nothing into a path.
func TestKeyPathOfRefuses(t *testing.T) {
	for _, uri := range []string{"pushgateway://pg", "pushgateway://pg/job", "pushgateway://pg/job/x/", "pushgateway://pg/instance/i/job/x",
		"pushgateway://pg/job/..", "pushgateway://pg/job/x/a/..", "pushgateway://pg/job/a%2Fb", "pushgateway://pg/job/a b",
		"pushgateway://pg/job/x/../../api", "kafka://pg/job/x"} {
		if got, ok := keyPathOf(uri); ok {
			t.Errorf("%s read as %s", uri, got)
		}
	}
}
