package github

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestScale250Backfills runs 250 backfills (2 findings each) through the
// fake and measures the API calls of a first run, an unchanged re-run, a
// run where 10 findings in 10 backfills resolved, and a run where 10
// backfills resolved entirely. The numbers are in docs/reports/github.md.
func TestScale250Backfills(t *testing.T) {
	f := newFakeGitHub(t)
	s, _ := newTestSink(t, f)
	e := manyBackfills(250, 2)

	type want struct{ reads, writes int }
	step := func(name string, w want, check func(Result)) {
		t.Helper()
		f.resetCounts()
		res := runSync(t, s, e)
		reads, writes := f.counts()
		t.Logf("%-34s reads %3d  writes %3d  (%+v)", name, res.Reads, res.Writes,
			fmt.Sprintf("created %d edited %d closed %d commented %d unchanged %d", res.Created, res.Edited, res.Closed, res.Commented, res.Unchanged))
		if reads != res.Reads || writes != res.Writes {
			t.Errorf("%s: sink counted %d/%d calls, server saw %d/%d", name, res.Reads, res.Writes, reads, writes)
		}
		if res.Reads != w.reads || res.Writes != w.writes {
			t.Errorf("%s: %d reads, %d writes; want %d, %d", name, res.Reads, res.Writes, w.reads, w.writes)
		}
		check(res)
	}

	step("first run", want{reads: 1, writes: 250}, func(r Result) {
		if r.Created != 250 || len(r.IssueURLs) != 250 {
			t.Errorf("created %d, %d URLs", r.Created, len(r.IssueURLs))
		}
	})
	step("unchanged re-run (3 pages)", want{reads: 3, writes: 0}, func(r Result) {
		if r.Unchanged != 250 || len(r.IssueURLs) != 250 {
			t.Errorf("unchanged %d, %d URLs: every page must be read", r.Unchanged, len(r.IssueURLs))
		}
	})
	for i := 1; i <= 10; i++ {
		e.without(fmt.Sprintf("bigquery://proj-a/tmp/bf_%04d_t0", i*20))
	}
	step("10 findings resolved", want{reads: 3, writes: 10}, func(r Result) {
		if r.Edited != 10 || r.Closed != 0 {
			t.Errorf("edited %d closed %d", r.Edited, r.Closed)
		}
	})
	for i := 1; i <= 10; i++ {
		e.without(fmt.Sprintf("bigquery://proj-a/tmp/bf_%04d_t1", i*20))
	}
	// Each close: the state change (owing the comment), the comment, and
	// clearing the owed comment from the marker.
	step("10 backfills fully resolved", want{reads: 3, writes: 30}, func(r Result) {
		if r.Closed != 10 || r.Commented != 10 {
			t.Errorf("closed %d commented %d", r.Closed, r.Commented)
		}
	})
	issues, _ := f.snapshot()
	if len(issues) != 250 {
		t.Errorf("%d issues, want 250", len(issues))
	}
	for _, is := range issues {
		if strings.Count(is.body, markerPrefix) != 1 {
			t.Fatalf("issue #%d has %d markers", is.number, strings.Count(is.body, markerPrefix))
		}
	}
}

// atScale is 1,000 backfills of two findings each, their issues filed by
// a first run, the fake then answering after latency: the GitHub half of
// the sinks' bench (bench/README.md).
func atScale(tb testing.TB, latency time.Duration) (*fakeGitHub, *Sink, *estate) {
	f := newFakeGitHub(tb)
	s, _ := newTestSink(tb, f)
	e := manyBackfills(1000, 2)
	runSync(tb, s, e)
	f.mu.Lock()
	f.latency = latency
	f.mu.Unlock()
	return f, s, e
}

// scalePages is the listing of 1,000 issues, 100 a page: all an unchanged
// run needs to read.
const scalePages = 10

// TestScale1000UnchangedReadsTheListingOnly: over 1,000 backfills that did
// not change, a run reads the issue listing's pages and nothing else.
func TestScale1000UnchangedReadsTheListingOnly(t *testing.T) {
	f, s, e := atScale(t, 0)
	f.resetCounts()
	res := runSync(t, s, e)
	if reads, writes := f.counts(); reads != scalePages || writes != 0 || res.Unchanged != 1000 {
		t.Errorf("unchanged run: %d reads, %d writes, %d unchanged; want %d reads (the listing's pages), no write, 1000 unchanged",
			reads, writes, res.Unchanged, scalePages)
	}
}

// BenchmarkSyncAtScale is an unchanged run over 1,000 backfills with 50 ms
// an answer. The sink calls GitHub one call at a time (GitHub asks
// integrations not to call concurrently: its secondary rate limit), so its
// floor is calls × latency; x-bound is the time over that floor, and
// x-pages the calls over the listing's pages. rate-limit-used is what the
// run takes from the hourly budget of 5,000 requests.
//
//	go test -run '^$' -bench SyncAtScale -benchtime 3x ./reports/github/
func BenchmarkSyncAtScale(b *testing.B) {
	const latency = 50 * time.Millisecond
	f, s, e := atScale(b, latency)
	var calls int
	var took time.Duration
	for b.Loop() {
		f.resetCounts()
		start := time.Now()
		runSync(b, s, e)
		took = time.Since(start)
		reads, writes := f.counts()
		calls = reads + writes
	}
	b.ReportMetric(float64(calls), "calls")
	b.ReportMetric(float64(calls)/scalePages, "x-pages")
	b.ReportMetric(float64(took)/float64(time.Duration(calls)*latency), "x-bound")
	b.ReportMetric(float64(calls), "rate-limit-used")
}
