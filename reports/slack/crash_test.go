package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

// killAfter is a kill of the audit right after its nth chat.postMessage
// reached Slack, before the answer came back: the request is served (Slack
// keeps the message), then the run's context is cancelled and the call
// fails, so nothing after it happens, the store's confirmation included.
type killAfter struct {
	n      int
	cancel context.CancelFunc

	mu     sync.Mutex
	posts  int
	killed bool
}

func (k *killAfter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || !strings.HasSuffix(r.URL.Path, "/chat.postMessage") {
		return resp, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.posts++; k.posts == k.n {
		resp.Body.Close()
		k.killed = true
		k.cancel()
		return nil, context.Canceled
	}
	return resp, nil
}

// crashClock is the store's and Slack's clock, moved by hand.
type crashClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *crashClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *crashClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// posted describes the messages in Slack without their ts, sorted (a
// rerun may send the owners' messages before the rest of the digest):
// what a reader sees, and under which head each reply is threaded.
func posted(ps []sent) []string {
	head := map[string]string{}
	for _, p := range ps {
		head[p.TS] = p.Text
	}
	var out []string
	for _, p := range ps {
		under := ""
		if p.ThreadTS != "" {
			under = "reply under " + head[p.ThreadTS]
		}
		out = append(out, fmt.Sprintf("%s %s meta=%v\n%s", p.Channel, under, p.Metadata, allText([]sent{p})))
	}
	slices.Sort(out)
	return out
}

// The crash sweep: for every message of a run (a digest in several
// threaded parts, an owner fallback list, owners' messages), the audit is
// killed right after Slack accepted it; a rerun once the claim's lease has
// run out leaves Slack exactly as an uninterrupted run does: no digest or
// DM lost, none repeated. A rerun inside the lease waits for it and, the
// lease still renewed by nobody, exits 3 naming the period.
func TestCrashSweepExactlyOnce(t *testing.T) {
	owners := model.Owners{"alice": {Email: "alice@example.com"}, "bob": {Email: "bob@example.com"}, "carol": {Email: "carol@example.com"}}
	report := func() *model.Report { return estate(day(0), 130) }
	run := func(t *testing.T, kill int) (f *fakeSlack, killed bool) {
		f = newFakeSlack(t)
		f.Users["alice@example.com"], f.Users["bob@example.com"] = "U0ALICE", "U0BOB" // carol: fallback list
		clock := &crashClock{now: time.Now().UTC().Truncate(time.Second)}
		f.Now = clock.Now
		path := filepath.Join(t.TempDir(), "h.db")
		open := func() *history.Store {
			s, err := history.Open(context.Background(), history.Config{Path: path}, history.WithClock(clock.Now))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
		store := open()
		r := report()
		if err := store.Record(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		k := &killAfter{n: kill, cancel: cancel}
		s := newBotSink(t, f, Config{OwnerMessages: true}, owners, store, WithHTTPClient(&http.Client{Transport: k}))
		res, err := s.Post(ctx, r)
		if !k.killed {
			if err != nil {
				t.Fatalf("uninterrupted run: %v", err)
			}
			return f, false
		}
		if err == nil {
			t.Fatalf("kill after post %d: the run did not notice: %+v", kill, res)
		}
		if kill == 1 {
			// Right away: the dead run's lease is live; the rerun waits,
			// nobody renews or confirms, and it says so.
			_, err := newBotSink(t, f, Config{OwnerMessages: true}, owners, open()).Post(context.Background(), r)
			var ue *UnconfirmedError
			if !errors.Is(err, ErrIncomplete) || !errors.As(err, &ue) ||
				!strings.Contains(err.Error(), "weekly digest for 2026-W10 was claimed at "+stamp(clock.Now())+" and never confirmed") {
				t.Errorf("rerun inside the lease: %v; want exit 3 naming the period", err)
			}
		}
		clock.Add(history.DefaultDigestLease + time.Second)
		res, err = newBotSink(t, f, Config{OwnerMessages: true}, owners, open()).Post(context.Background(), r)
		if err != nil {
			t.Fatalf("rerun after a kill after post %d: %v", kill, err)
		}
		if len(res.Recovered) == 0 {
			t.Errorf("rerun after a kill after post %d recovered nothing: %+v", kill, res)
		}
		return f, true
	}

	want, _ := run(t, 0)
	wantPosts := posted(want.Sent())
	if top := topLevel(want.Sent()); len(wantPosts) < 5 || top != 3 {
		t.Fatalf("uninterrupted run posted %d messages (%d top level); the sweep needs a threaded digest and two DMs", len(wantPosts), top)
	}
	for kill := 1; kill <= len(wantPosts); kill++ {
		t.Run(fmt.Sprintf("kill after post %d of %d", kill, len(wantPosts)), func(t *testing.T) {
			f, killed := run(t, kill)
			if !killed {
				t.Fatal("the kill did not happen")
			}
			got := posted(f.Sent())
			if !slices.Equal(threads(f.Sent(), true), threads(want.Sent(), true)) {
				t.Errorf("after the kill and a rerun a thread differs from the uninterrupted run's in text, blocks or order")
			}
			if !slices.Equal(got, wantPosts) {
				t.Errorf("after the kill and a rerun Slack has %d messages, an uninterrupted run leaves %d", len(got), len(wantPosts))
				for i := range max(len(got), len(wantPosts)) {
					if i >= len(got) || i >= len(wantPosts) || got[i] != wantPosts[i] {
						t.Logf("first difference at message %d", i+1)
						break
					}
				}
			}
		})
	}
}

// SendOnce, the mechanism reminders use: a keyed message goes out once
// however often it is asked for, also when the run that sent it died
// before confirming; another key is another message.
func TestSendOnce(t *testing.T) {
	f := newFakeSlack(t)
	clock := &crashClock{now: time.Now().UTC().Truncate(time.Second)}
	f.Now = clock.Now
	path := filepath.Join(t.TempDir(), "h.db")
	open := func() *history.Store {
		s, err := history.Open(context.Background(), history.Config{Path: path}, history.WithClock(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	ctx, cancel := context.WithCancel(context.Background())
	k := &killAfter{n: 1, cancel: cancel}
	s := newBotSink(t, f, Config{}, nil, open(), WithHTTPClient(&http.Client{Transport: k}))
	if _, err := s.SendOnce(ctx, "bfaudit_reminder", "fp1:due-in-7d", "U0ALICE", "BF-1: 7 days left", nil); err == nil {
		t.Fatal("the killed send reported success")
	}
	clock.Add(history.DefaultDigestLease + time.Second)
	again := newBotSink(t, f, Config{}, nil, open())
	d, err := again.SendOnce(context.Background(), "bfaudit_reminder", "fp1:due-in-7d", "U0ALICE", "BF-1: 7 days left", nil)
	if err != nil || !d.Sent || d.Recovered == "" {
		t.Fatalf("rerun: %+v %v; want it found in Slack and confirmed", d, err)
	}
	if d, err := again.SendOnce(context.Background(), "bfaudit_reminder", "fp1:due-in-7d", "U0ALICE", "BF-1: 7 days left", nil); err != nil || !d.Already {
		t.Errorf("third ask: %+v %v; want already sent", d, err)
	}
	if d, err := again.SendOnce(context.Background(), "bfaudit_reminder", "fp1:overdue", "U0ALICE", "BF-1: overdue", nil); err != nil || !d.Sent {
		t.Errorf("another stage: %+v %v; want it sent", d, err)
	}
	ps := f.Sent()
	if len(ps) != 2 || ps[0].Text != "BF-1: 7 days left" || ps[1].Text != "BF-1: overdue" || ps[0].Metadata["event_type"] != "bfaudit_reminder" {
		t.Errorf("Slack has %+v; want one reminder per stage", ps)
	}
}
