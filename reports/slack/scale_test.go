package slack

import (
	"context"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

// BenchmarkPostAtScale is the Slack half of the sinks' bench
// (bench/README.md): a digest of 1,000 backfills and a direct message to
// each of their three owners, posted once, at 50 ms an answer; then the
// same run again, which finds everything posted this period and makes
// no call. The sink calls Slack one call at a time (chat.postMessage is
// limited to about one a second a channel), so its floor is calls ×
// latency: x-bound is the first run's time over that floor.
//
//	go test -run '^$' -bench PostAtScale -benchtime 3x ./reports/slack/
func BenchmarkPostAtScale(b *testing.B) {
	const latency = 50 * time.Millisecond
	var first, rerun int
	var took time.Duration
	for b.Loop() {
		f := newFakeSlack(b)
		owners := model.Owners{}
		for _, o := range []string{"alice", "bob", "carol"} {
			owners[o] = model.Contact{Email: o + "@example.com"}
			f.AddUser(o+"@example.com", "U0"+o)
		}
		store := openStore(b, history.Config{Path: b.TempDir() + "/h.db"})
		s := newBotSink(b, f, Config{OwnerMessages: true}, owners, store)
		f.Latency = latency
		r := estate(day(0), 1000)
		if err := store.Record(context.Background(), r); err != nil {
			b.Fatal(err)
		}
		start := time.Now() // the sink alone, without the history store's record of the run
		if _, err := s.Post(context.Background(), r); err != nil {
			b.Fatal(err)
		}
		took = time.Since(start)
		if err := store.MarkDelivered(context.Background(), r.Now); err != nil {
			b.Fatal(err)
		}
		first = len(f.Seen())
		if _, err := audit(b, store, s, r); err != nil {
			b.Fatal(err)
		}
		rerun = len(f.Seen()) - first
	}
	b.ReportMetric(float64(first), "calls")
	b.ReportMetric(float64(rerun), "rerun-calls")
	b.ReportMetric(float64(took)/float64(time.Duration(first)*latency), "x-bound")
}
