package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

// threads describes what a reader of the channels sees, by content: each
// thread (a channel and the text of its head) with the text of its
// messages in the order they were posted, head first. Sorted by thread,
// since a rerun may send the owners' messages before the rest of the
// digest; within a thread the order is kept, so a part posted twice, out
// of place or not at all shows.
// With raw, each message is its text, metadata and blocks as JSON, byte
// for byte, rather than the text a reader sees.
func threads(ps []sent, raw bool) []string {
	head := map[string]string{}
	for _, p := range ps {
		if p.ThreadTS == "" {
			head[p.TS] = p.Text
		}
	}
	byThread := map[string][]string{}
	var order []string
	for _, p := range ps {
		h := p.TS
		if p.ThreadTS != "" {
			h = p.ThreadTS
		}
		id := p.Channel + " " + head[h]
		if _, ok := byThread[id]; !ok {
			order = append(order, id)
		}
		m := allText([]sent{p})
		if raw {
			b, _ := json.Marshal(p.Blocks)
			m = fmt.Sprintf("%s %v %s\n", p.Text, p.Metadata, b)
		}
		byThread[id] = append(byThread[id], m)
	}
	var out []string
	for _, id := range order {
		out = append(out, "thread "+id+"\n"+strings.Join(byThread[id], "---\n"))
	}
	slices.Sort(out)
	return out
}

// The content sweep (issue 41): the audit is killed after recording the
// run and before Slack (kill 0), and right after each message reached
// Slack; the rerun is a later audit of the same week that records itself
// again, as the CLI does. After it, every thread reads exactly as the
// uninterrupted run's: same text, part by part, same placement and order.
func TestCrashSweepSameText(t *testing.T) {
	owners := model.Owners{"alice": {Email: "alice@example.com"}, "bob": {Email: "bob@example.com"}, "carol": {Email: "carol@example.com"}}
	const n = 160 // a digest in four parts, alice's message in two
	// run audits as of day(0) with the kill after post kill (-1: none,
	// 0: before Slack), then, when killed, reruns as of day(0)+later. It
	// returns the fake and the threads begun before the kill.
	run := func(t *testing.T, cfg history.Config, kill int, later time.Duration) (*fakeSlack, map[string]bool) {
		f := newFakeSlack(t)
		f.Users["alice@example.com"], f.Users["bob@example.com"] = "U0ALICE", "U0BOB" // carol: fallback list
		clock := &crashClock{now: time.Now().UTC().Truncate(time.Second)}
		f.Now = clock.Now
		open := func() *history.Store {
			s, err := history.Open(context.Background(), cfg, history.WithClock(clock.Now))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
		store := open()
		r := estate(day(0), n)
		if err := store.Record(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if kill != 0 {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			k := &killAfter{n: kill, cancel: cancel}
			s := newBotSink(t, f, Config{OwnerMessages: true}, owners, store, WithHTTPClient(&http.Client{Transport: k}))
			_, err := s.Post(ctx, r)
			if !k.killed {
				if err != nil {
					t.Fatalf("uninterrupted run: %v", err)
				}
				return f, nil
			}
		}
		begun := map[string]bool{}
		for _, th := range threads(f.Sent(), false) {
			begun[strings.SplitN(th, "\n", 2)[0]] = true
		}
		clock.Add(history.DefaultDigestLease + time.Second)
		again := open()
		r2 := estate(day(0).Add(later), n)
		if err := again.Record(context.Background(), r2); err != nil {
			t.Fatal(err)
		}
		if _, err := newBotSink(t, f, Config{OwnerMessages: true}, owners, again).Post(context.Background(), r2); err != nil {
			t.Fatalf("rerun after kill %d: %v", kill, err)
		}
		// The digest is recorded for the audit it shows: the killed run's
		// when that run began posting it, so the next digest counts from there.
		wantAt := day(0)
		if kill == 0 {
			wantAt = r2.Now
		}
		if at, ok, err := again.LastDigest(context.Background(), "slack:#leads", day(7)); err != nil || !ok || !at.Equal(wantAt) {
			t.Errorf("the recovered digest is recorded for %s (%v, %v); want %s", at, ok, err, wantAt)
		}
		return f, begun
	}

	want, _ := run(t, history.Config{Path: t.TempDir() + "/h.db"}, -1, 0)
	wantThreads, wantRaw := threads(want.Sent(), false), threads(want.Sent(), true)
	total := len(want.Sent())
	var dmParts int
	for _, p := range want.Sent() {
		if p.Channel == "D0ALICE" {
			dmParts++
		}
	}
	if top := topLevel(want.Sent()); top != 3 || dmParts < 2 || total-dmParts < 4 || !strings.Contains(allText(want.Sent()), "First digest") {
		t.Fatalf("uninterrupted run posted %d messages (%d top level, alice's in %d parts); the sweep needs a first digest in threaded parts and a DM in parts", total, top, dmParts)
	}
	// The rerun as of the same time (--now) must leave every thread as
	// the uninterrupted run does. A rerun an hour later renders what it
	// sends first with its own time ("due in 6d", not 7d): only the
	// threads the killed run had begun must read exactly as before.
	for _, later := range []time.Duration{0, time.Hour} {
		for kill := 0; kill <= total; kill++ {
			t.Run(fmt.Sprintf("rerun %v later, kill after post %d of %d", later, kill, total), func(t *testing.T) {
				eachStore(t, func(t *testing.T, cfg history.Config) {
					f, begun := run(t, cfg, kill, later)
					if len(f.Sent()) != total {
						t.Errorf("Slack has %d messages, the uninterrupted run leaves %d", len(f.Sent()), total)
					}
					if !strings.Contains(allText(f.Sent()), "First digest: nothing earlier to compare with") {
						t.Errorf("the recovered digest is not a first digest:\n%s", allText(f.Sent()[:1]))
					}
					got, gotRaw := threads(f.Sent(), false), threads(f.Sent(), true)
					if later == 0 && !slices.Equal(gotRaw, wantRaw) {
						t.Errorf("the messages' blocks or metadata differ from the uninterrupted run's, byte for byte")
					}
					for i := range max(len(got), len(wantThreads)) {
						var g, w string
						if i < len(got) {
							g = got[i]
						}
						if i < len(wantThreads) {
							w = wantThreads[i]
						}
						if g != w && (later == 0 || begun[strings.SplitN(w, "\n", 2)[0]]) {
							t.Errorf("thread %d differs from the uninterrupted run's: %s", i+1, firstDiff(g, w))
						}
					}
				})
			})
		}
	}
}

// firstDiff shows the first line where got and want part.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d (%s):\n  got:  %.160q\n  want: %.160q", i+1, strings.SplitN(got, "\n", 2)[0], a, b)
		}
	}
	return ""
}

// A dry run over a digest claim never confirmed plans the parts the
// killed run rendered, which a real run would finish, not its own.
func TestDryRunPlansTheStoredParts(t *testing.T) {
	f := newFakeSlack(t)
	clock := &crashClock{now: time.Now().UTC().Truncate(time.Second)}
	f.Now = clock.Now
	store, err := history.Open(context.Background(), history.Config{Path: t.TempDir() + "/h.db"}, history.WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	r := estate(day(0), 160)
	if err := store.Record(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k := &killAfter{n: 1, cancel: cancel}
	if _, err := newBotSink(t, f, Config{}, nil, store, WithHTTPClient(&http.Client{Transport: k})).Post(ctx, r); err == nil || !k.killed {
		t.Fatalf("the run was not killed: %v", err)
	}
	later := estate(day(0).Add(time.Hour), 160) // renders "due in 13d" where the killed run said 14d
	if err := store.Preview(context.Background(), later); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	if _, err := newBotSink(t, f, Config{DryRun: true}, nil, store, WithDryRunWriter(&plan)).Post(context.Background(), later); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.String(), "due in 14d") || strings.Contains(plan.String(), "due in 13d") {
		t.Errorf("the dry run does not plan the killed run's parts:\n%.600s", plan.String())
	}
}
