package kafka

import (
	"net/url"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
)

// Any group name gives a URI whose last segment reads back as the name,
// and a scope that is one segment.
func FuzzGroupURI(f *testing.F) {
	for _, s := range []string{"bf_1234_replay", "a/b", "%2F", "", "..", "grp?x#y", "名前", "-x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, group string) {
		u := URI("events", group)
		rest, ok := strings.CutPrefix(u, "kafka://events/groups/")
		if !ok || strings.ContainsAny(rest, "/?#") {
			t.Fatalf("URI(%q) = %q", group, u)
		}
		back, err := url.PathUnescape(rest)
		if err != nil || back != group {
			t.Fatalf("URI(%q) = %q reads back as %q (%v)", group, u, back, err)
		}
		if s := GroupScope(group); strings.Contains(s, "/") {
			t.Fatalf("GroupScope(%q) = %q is more than one segment", group, s)
		}
	})
}

// Config decoding never panics, and a refused entry names a key.
func FuzzConfig(f *testing.F) {
	f.Add("kafka:9092", "bf_.*", "plain", int64(10))
	f.Add("", "(", "gssapi", int64(0))
	f.Add("[::1]:9092", "", "", int64(-1))
	f.Fuzz(func(t *testing.T, broker, group, mech string, maxGroups int64) {
		t.Setenv("BFAUDIT_FUZZ_KAFKA_PW", "pw")
		e := map[string]any{"type": "kafka", "name": "k", "brokers": []any{broker}, "groups": []any{group}, "max_groups": maxGroups}
		if mech != "" {
			e["sasl"] = map[string]any{"mechanism": mech, "username": "u", "password_env": "BFAUDIT_FUZZ_KAFKA_PW"}
		}
		_, err := collectors.Decode(e, collectors.Env{})
		if err == nil {
			return
		}
		named := false
		for _, key := range []string{"brokers", "groups", "max_groups", "sasl", "timeout"} {
			named = named || strings.Contains(err.Error(), key)
		}
		if !named {
			t.Fatalf("error names no key: %v", err)
		}
	})
}
