package rabbitmq

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"gopkg.in/yaml.v3"
)

func TestSampleConfigDecodes(t *testing.T) {
	t.Setenv("BFAUDIT_RABBITMQ_PASSWORD", "s3cret")
	var entries []map[string]any
	if err := yaml.Unmarshal([]byte(sampleConfig), &entries); err != nil {
		t.Fatalf("sample.yaml: %v", err)
	}
	for _, e := range entries {
		// The sample names a CA file that only exists on a real host.
		e["ca_file"] = writeCA(t)
		inst, err := collectors.Decode(e, collectors.Env{})
		if err != nil {
			t.Fatalf("decode sample: %v", err)
		}
		r := inst.Collector.(*RabbitMQ)
		if inst.Type != "rabbitmq" || r.PageSize != 500 || r.Timeout != 30*time.Second || len(r.Vhosts) != 2 || r.password != "s3cret" {
			t.Errorf("decoded %+v", r)
		}
	}
}

// writeCA returns a PEM certificate (self-signed, testdata) for config tests.
func writeCA(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("testdata/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	t.Setenv("BFAUDIT_TEST_RMQ_EMPTY", "")
	t.Setenv("BFAUDIT_TEST_RMQ_PW", "pw")
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	ok := func(extra map[string]any) map[string]any {
		e := map[string]any{"type": "rabbitmq", "url": "http://rmq:15672", "username": "u", "password_env": "BFAUDIT_TEST_RMQ_PW"}
		for k, v := range extra {
			if v == nil {
				delete(e, k)
				continue
			}
			e[k] = v
		}
		return e
	}
	tests := []struct {
		name  string
		entry map[string]any
		want  string
	}{
		{"no url", ok(map[string]any{"url": nil}), "url: missing"},
		{"not http", ok(map[string]any{"url": "amqp://u:s3cret@rmq:5672"}), "url: \"amqp://rmq:5672\" is not an http(s) address"},
		{"no username", ok(map[string]any{"username": nil}), "username: missing"},
		{"no password", ok(map[string]any{"password_env": nil}), "password_env: missing"},
		{"empty password env", ok(map[string]any{"password_env": "BFAUDIT_TEST_RMQ_EMPTY"}), "password_env: environment variable BFAUDIT_TEST_RMQ_EMPTY is empty"},
		{"page too large", ok(map[string]any{"page_size": 1000}), "page_size: must be between 1 and 500"},
		{"empty vhost", ok(map[string]any{"vhosts": []any{""}}), "vhosts[0]: empty"},
		{"missing CA", ok(map[string]any{"ca_file": "/nonexistent/ca.pem"}), "ca_file:"},
		{"CA not PEM", ok(map[string]any{"ca_file": notPEM}), "holds no PEM certificate"},
		{"unknown key", ok(map[string]any{"queues": "all"}), "queues"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := collectors.Decode(tc.entry, collectors.Env{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err=%v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
	t.Run("credentials in the url are accepted and kept out of it", func(t *testing.T) {
		inst, err := collectors.Decode(map[string]any{"type": "rabbitmq", "url": "http://guest:s3cret@rmq:15672/"}, collectors.Env{})
		if err != nil {
			t.Fatal(err)
		}
		r := inst.Collector.(*RabbitMQ)
		if r.Username != "guest" || r.password != "s3cret" || r.base.String() != "http://rmq:15672" {
			t.Errorf("username=%q base=%s", r.Username, r.base)
		}
	})
}

func TestExpiresAfter(t *testing.T) {
	tests := []struct {
		name, args, policy string
		want               time.Duration
		ok                 bool
	}{
		{"argument", `{"x-expires": 600000}`, `{}`, 10 * time.Minute, true},
		{"policy", `{}`, `{"expires": 60000}`, time.Minute, true},
		{"the lower wins", `{"x-expires": 600000}`, `{"expires": 60000}`, time.Minute, true},
		{"old broker's empty policy list", `{}`, `[]`, 0, false},
		{"none", `{}`, ``, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q queue
			json.Unmarshal([]byte(tc.args), &q.Arguments)
			q.EffectivePolicy = json.RawMessage(tc.policy)
			d, ok := expiresAfter(q)
			if d != tc.want || ok != tc.ok {
				t.Errorf("got %s %v, want %s %v", d, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestParseIdleSince(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2026-11-30T03:27:32.609+00:00": time.Date(2026, 11, 30, 3, 27, 32, 609_000_000, time.UTC),
		"2020-05-05 10:10:10":           time.Date(2020, 5, 5, 10, 10, 10, 0, time.UTC),
	} {
		got, ok := parseIdleSince(in)
		if !ok || !got.Equal(want) {
			t.Errorf("%q: got %s %v, want %s", in, got, ok, want)
		}
	}
	if _, ok := parseIdleSince("yesterday"); ok {
		t.Error("nonsense idle_since was read")
	}
}
