package cloudasset

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// A quota error (429 RESOURCE_EXHAUSTED) is retried after the delay the
// API's google.rpc.RetryInfo asks for, which the REST transport brings in
// the error body's details; the larger of it and Retry-After wins.
func TestRetryInfoHonoured(t *testing.T) {
	for _, tc := range []struct {
		name, retryAfter string
		want             time.Duration
	}{
		{"RetryInfo alone", "", 7 * time.Second},
		{"RetryInfo over a shorter Retry-After", "2", 7 * time.Second},
		{"Retry-After over a shorter RetryInfo", "9", 9 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAsset(t, sampleEstate())
			f.quota, f.retryAfter = 1, tc.retryAfter
			c := newCollector(t, f.start().URL, "organizations/42")
			var waits []time.Duration
			c.retry.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			sink := collect(t, c)
			if len(sink.Errors) != 0 || len(sink.Artifacts) != len(wantURIs) {
				t.Fatalf("errors %+v, %d artifacts", sink.Errors, len(sink.Artifacts))
			}
			if len(waits) != 1 || waits[0] != tc.want {
				t.Fatalf("waits %v; want one of %s", waits, tc.want)
			}
		})
	}
}

// A RetryInfo delay beyond the retry budget is not slept: the scope fails
// at once instead of holding the audit for an hour.
func TestRetryInfoBeyondBudgetNotWaited(t *testing.T) {
	f := newFakeAsset(t, sampleEstate())
	f.quota, f.quotaDelay = 1000, "3600s"
	c := newCollector(t, f.start().URL, "projects/proj", "projects/other")
	c.retry = remote.RetryPolicy{} // real sleeps, default budget
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sink := collectors.NewTestSink()
	err := collectors.Collect(ctx, c, sink)
	if ctx.Err() != nil {
		t.Fatal("Collect waited for the server's RetryInfo")
	}
	if err == nil || !strings.Contains(err.Error(), "beyond the retry budget") {
		t.Fatalf("err %v; want the budget named", err)
	}
	// The source is one unit: the framework records its failure at the
	// whole source, after each project's.
	if len(sink.Errors) != 3 || sink.Errors[0].Scope != "proj" || sink.Errors[1].Scope != "other" ||
		sink.Errors[2].Scope != "" || !strings.HasPrefix(sink.Errors[2].Error, "cloudasset: no scope or file answered") {
		t.Fatalf("errors %+v; want one at each project and the source's", sink.Errors)
	}
	if f.calls() != 2 {
		t.Errorf("%d calls; want one per scope", f.calls())
	}
}
