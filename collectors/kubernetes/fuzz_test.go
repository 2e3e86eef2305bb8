package kubernetes

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	k8s "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzListAnswer hands arbitrary bytes to the real client as the API
// server's answer to every list call, through the same guard production
// uses, and checks that decoding and emitting artifacts from labels,
// annotations and specs never panics, that every artifact is reported
// under the namespace listed, and that every error names that namespace.
func FuzzListAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"CronJobList","apiVersion":"batch/v1","metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"bf-1-replay","namespace":"fz","labels":{"backfill-id":"BF-1","owner":"a@b"},"annotations":{"owner":"x"}},"spec":{"schedule":"@daily","suspend":true,"concurrencyPolicy":"Forbid","timeZone":"Europe/Berlin"},"status":{"lastScheduleTime":"2026-01-01T00:00:00Z","active":[{"name":"j"}]}}]}`,
		`{"kind":"JobList","apiVersion":"batch/v1","metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"bf-1-run","labels":{"backfill-id":"bf_1","kueue.x-k8s.io/queue-name":"low"},"ownerReferences":[{"kind":"CronJob","name":"bf-1-replay","apiVersion":"batch/v1","uid":"u"}]},"spec":{"ttlSecondsAfterFinished":-5,"parallelism":2147483647,"suspend":false},"status":{"conditions":[{"type":"Complete","status":"True","lastTransitionTime":"2026-01-02T00:00:00Z"}],"succeeded":1}}]}`,
		`{"kind":"JobList","apiVersion":"batch/v1","metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"x","namespace":"elsewhere","labels":{"backfill-id":""}}}]}`,
		`{"kind":"CronJobList","apiVersion":"batch/v1","metadata":{"resourceVersion":"1","continue":"c"},"items":null}`,
		`{"kind":"Status","apiVersion":"v1","status":"Failure","code":403,"reason":"Forbidden","message":"no"}`,
		`null`, `{}`, `[]`, ``, `{"items":[{}]}`, "\x00\x01",
	} {
		f.Add([]byte(seed))
	}
	var answer atomic.Value
	answer.Store([]byte(nil))
	cfg := &rest.Config{Host: "https://fuzz.invalid", Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body := answer.Load().([]byte)
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
	})}
	cfg.QPS, cfg.Burst = -1, 0 // no client-side rate limit: the answers are local
	bound(cfg, 5*time.Second)
	cs, err := k8s.NewForConfig(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		answer.Store(data)
		c := New()
		c.Client, c.strict = cs, true
		c.Namespaces = []string{"fz"}
		c.OwnerLabel = "owner"
		c.LabelKeys = []string{"backfill-id", "backfill_id"}
		c.Retry = remote.RetryPolicy{Attempts: 1, Sleep: func(context.Context, time.Duration) error { return nil }}
		if err := c.Init(env("fuzz")); err != nil {
			t.Fatal(err)
		}
		sink := collectors.NewTestSink()
		// fz is the only namespace: its failure is the source's, and the
		// error must still be fz's.
		if err := collectors.Collect(context.Background(), c, sink); err != nil && !strings.Contains(err.Error(), "namespace fz") {
			t.Fatalf("a namespace's bad answer failed the source outside it: %v", err)
		}
		for _, a := range sink.Artifacts {
			if a.Scope != "fz" || !strings.HasPrefix(a.URI, "kubernetes://fuzz/fz/") {
				t.Errorf("artifact %s reported under scope %q, want fz", a.URI, a.Scope)
			}
		}
		for _, e := range sink.Errors {
			if e.Scope != "fz" || !strings.Contains(e.Error, "namespace fz") {
				t.Errorf("error %+v does not name namespace fz", e)
			}
			if strings.Contains(e.Error, hostile.Canary) {
				t.Errorf("error leaks: %s", e.Error)
			}
		}
	})
}
