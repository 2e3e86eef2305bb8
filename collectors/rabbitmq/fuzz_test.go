package rabbitmq

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzListingAnswer hands arbitrary bytes to the collector as the
// management API's answer to every listing of vhost fz (queues, exchanges,
// bindings) and checks that decoding (arguments, idle_since, policies) and
// emitting never panic, that every artifact is reported under vhost fz,
// and that every error names the vhost.
func FuzzListingAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"items":[{"name":"bf_1_retry","vhost":"fz","messages":3,"consumers":1,"idle_since":"2026-01-01T00:00:00.000+00:00","arguments":{"x-expires":3600000,"x-backfill-id":"BF-1","owner":"a"},"effective_policy_definition":{"expires":1000}}],"page":1,"page_count":1}`,
		`{"items":[{"name":"q","vhost":"fz","arguments":{"x-expires":"soon","backfill":7},"effective_policy_definition":[],"idle_since":"2026-01-01 00:00:00"}],"page":1,"page_count":2}`,
		`{"items":[{"name":"bf_2_dlx","vhost":"fz","type":"direct","arguments":{"x-backfill-id":null}}],"page":1,"page_count":1}`,
		`[{"source":"bf_2_dlx","vhost":"fz","destination":"bf_1_retry","destination_type":"queue","routing_key":"r"}]`,
		`{"items":[],"page":1,"page_count":0}`,
		`{"items":null}`, `null`, `{}`, `[]`, ``, `{"items":[{"name":"q","vhost":"other"}],"page":1,"page_count":1}`,
		`{"items":[{"messages":-1,"consumers":9223372036854775807}],"page":1,"page_count":-3}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			body := data
			if r.URL.Path == "/api/whoami" {
				body = []byte(`{"name":"guest"}`)
			}
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
		})}
		t.Setenv("BFAUDIT_TEST_RMQ_FUZZ", "fuzz-password")
		r := &RabbitMQ{URL: "http://fuzz.invalid", Username: "guest", PasswordEnv: "BFAUDIT_TEST_RMQ_FUZZ", Vhosts: []string{"fz"},
			PageSize: 2, Timeout: 5 * time.Second, MaxPages: 5, HTTP: client, Retry: noSleep}
		if err := r.Init(testEnv("fuzz")); err != nil {
			t.Fatal(err)
		}
		sink := collectors.NewTestSink()
		err := collectors.Collect(context.Background(), r, sink)
		for _, a := range sink.Artifacts {
			if a.Scope != "fz" || !strings.HasPrefix(a.URI, "rabbitmq://fuzz/fz/") {
				t.Errorf("artifact %s reported under scope %q, want fz", a.URI, a.Scope)
			}
		}
		for _, e := range sink.Errors {
			if e.Scope != "fz" || !strings.Contains(e.Error, `vhost "fz"`) {
				t.Errorf("error %+v does not name vhost fz", e)
			}
		}
		if err != nil && !strings.Contains(err.Error(), `vhost "fz"`) {
			t.Errorf("error %v does not name vhost fz", err)
		}
	})
}
