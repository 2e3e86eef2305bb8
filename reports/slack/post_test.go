package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

func TestDigestOncePerPeriod(t *testing.T) {
	eachStore(t, func(t *testing.T, hcfg history.Config) {
		f := newFakeSlack(t)
		store := openStore(t, hcfg)
		s := newBotSink(t, f, Config{}, nil, store)

		// First digest: posted, says there is nothing to compare with.
		res, err := audit(t, store, s, estate(day(0), 4))
		if err != nil || !res.Posted || res.Period != "2026-W10" || res.Messages != 1 {
			t.Fatalf("first digest: %+v, %v; want posted once for 2026-W10", res, err)
		}
		first := f.Sent()
		checkLimits(t, first)
		txt := allText(first)
		for _, want := range []string{"Backfill audit digest · week 2026-W10", "*6 open findings* across 4 backfills",
			"critical 0 · high 2 · medium 4", "First digest",
			"• alice: 4", "<https://github.com/acme/data/issues/0|BF-1000>"} {
			if !strings.Contains(txt, want) {
				t.Errorf("first digest lacks %q:\n%s", want, txt)
			}
		}
		if first[0].Channel != "C0LEADS" || first[0].ThreadTS != "" {
			t.Errorf("digest went to %s thread %q, want the channel, top level", first[0].Channel, first[0].ThreadTS)
		}

		// Same week, the job reruns: nothing posted.
		res, err = audit(t, store, s, estate(day(2), 4))
		if err != nil || res.Posted || res.Skipped == "" {
			t.Fatalf("same-period rerun: %+v, %v; want skipped", res, err)
		}
		if n := len(f.Sent()); n != len(first) {
			t.Fatalf("same-period rerun posted %d more messages", n-len(first))
		}

		// Forced: posted again, compared with the digest of day 0.
		forced := newBotSink(t, f, Config{Force: true}, nil, store)
		r := without(estate(day(3), 4), "gcp://proj/iam/grant_0")
		res, err = audit(t, store, forced, r)
		if err != nil || !res.Posted {
			t.Fatalf("forced re-post: %+v, %v", res, err)
		}
		txt = allText(f.Sent()[len(first):])
		for _, want := range []string{"*New since the last digest (2 Mar 2026): 0*", "*Resolved since the last digest (2 Mar 2026): 1*", "gcp://proj/iam/grant_0"} {
			if !strings.Contains(txt, want) {
				t.Errorf("forced digest lacks %q:\n%s", want, txt)
			}
		}

		// Next week: a new digest, new and resolved since the forced one.
		before := len(f.Sent())
		r = estate(day(7), 5)
		r = without(r, "gcp://proj/iam/grant_0")
		r = without(r, "bigquery://proj/ds/tmp_1")
		res, err = audit(t, store, s, r)
		if err != nil || !res.Posted || res.Period != "2026-W11" {
			t.Fatalf("next week: %+v, %v", res, err)
		}
		txt = allText(f.Sent()[before:])
		for _, want := range []string{"*New since the last digest (5 Mar 2026): 1*", "bigquery://proj/ds/tmp_4",
			"*Resolved since the last digest (5 Mar 2026): 1*", "bigquery://proj/ds/tmp_1"} {
			if !strings.Contains(txt, want) {
				t.Errorf("next week's digest lacks %q:\n%s", want, txt)
			}
		}
	})
}

func TestLargeDigestContinuesInThread(t *testing.T) {
	f := newFakeSlack(t)
	store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
	s := newBotSink(t, f, Config{}, nil, store)
	res, err := audit(t, store, s, estate(day(0), 120))
	if err != nil {
		t.Fatal(err)
	}
	ps := f.Sent()
	checkLimits(t, ps)
	if len(ps) < 3 || res.Messages != len(ps) {
		t.Fatalf("120 backfills went out in %d messages (result says %d); want at least 3", len(ps), res.Messages)
	}
	for i, p := range ps[1:] {
		if p.ThreadTS != ps[0].TS || p.Channel != "C0LEADS" {
			t.Errorf("part %d: channel %s thread %q, want a reply in C0LEADS to %s", i+2, p.Channel, p.ThreadTS, ps[0].TS)
		}
		if want := fmt.Sprintf("Part %d of %d", i+2, len(ps)); !strings.Contains(allText([]sent{p}), want) {
			t.Errorf("part %d does not say %q", i+2, want)
		}
	}
	if !strings.Contains(allText(ps[:1]), fmt.Sprintf("Continued in %d more parts in the thread.", len(ps)-1)) {
		t.Error("the first message does not say the digest continues in the thread")
	}
	// Never cut: every backfill heads its own block exactly once.
	txt := allText(ps)
	for i := range 120 {
		head := fmt.Sprintf("*<%s|%s>* · ", issueURL(i), bfID(i))
		if n := strings.Count(txt, head); n != 1 {
			t.Errorf("backfill %s appears %d times as a heading, want 1", bfID(i), n)
		}
	}
}

func TestEstateTextPingsNoOne(t *testing.T) {
	f := newFakeSlack(t)
	s := newBotSink(t, f, Config{Period: PeriodEvery}, nil, nil)
	r := estate(day(0), 1)
	r.Findings = append(r.Findings, model.Finding{RuleID: "BF011", Title: "orphan <https://evil.example|click> & co",
		Severity: model.SeverityCritical, BackfillID: "<!here>", ArtifactURI: "bigquery://p/<!channel>",
		Owner: "<@U123>", Fingerprint: "f1"})
	r.Backfills = append(r.Backfills, model.BackfillReport{Backfill: &model.Backfill{ID: "<!here>"},
		IssueURL: "javascript:alert(1)|<!everyone>"})
	if _, err := s.Post(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	txt := allText(f.Sent())
	for _, bad := range []string{"<!channel>", "<!here>", "<@U123>", "<!everyone>", "<https://evil", "javascript:"} {
		if strings.Contains(txt, bad) {
			t.Errorf("estate text reached Slack unescaped: %q", bad)
		}
	}
	for _, want := range []string{"bigquery://p/&lt;!channel&gt;", "&lt;@U123&gt;", "&lt;!here&gt;", "&amp; co"} {
		if !strings.Contains(txt, want) {
			t.Errorf("digest lacks the escaped %q", want)
		}
	}
}

func TestRateLimitIsWaitedOut(t *testing.T) {
	f := newFakeSlack(t)
	f.Answer = func(n int, w http.ResponseWriter) bool {
		if n > 2 {
			return false
		}
		w.Header().Set("Retry-After", fmt.Sprint(n*3))
		w.WriteHeader(http.StatusTooManyRequests)
		return true
	}
	var waits []time.Duration
	s := newBotSink(t, f, Config{Period: PeriodEvery}, nil, nil,
		WithSleep(func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }))
	res, err := s.Post(context.Background(), estate(day(0), 2))
	if err != nil || !res.Posted {
		t.Fatalf("Post after 429s: %+v, %v", res, err)
	}
	if len(waits) != 2 || waits[0] != 3*time.Second || waits[1] != 6*time.Second {
		t.Errorf("waited %v, want the Retry-After values 3s then 6s", waits)
	}
	if n := len(f.Sent()); n != 1 {
		t.Errorf("%d messages landed, want exactly 1", n)
	}
}

func TestFailedPostIsNotRecorded(t *testing.T) {
	cases := []struct {
		name   string
		failOn int // postMessage call that fails
	}{
		{"first message", 1},
		{"a threaded continuation", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeSlack(t)
			f.Answer = func(n int, w http.ResponseWriter) bool {
				if n != tc.failOn {
					return false
				}
				writeJSON(w, map[string]any{"ok": false, "error": "channel_not_found"})
				return true
			}
			store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
			s := newBotSink(t, f, Config{}, nil, store)
			res, err := audit(t, store, s, estate(day(0), 120))
			if !errors.Is(err, ErrIncomplete) || res.Posted {
				t.Fatalf("Post = %+v, %v; want ErrIncomplete and not posted", res, err)
			}
			if !strings.Contains(err.Error(), "channel_not_found") {
				t.Errorf("error %q does not say what Slack answered", err)
			}
			if posted, _ := store.DigestPosted(context.Background(), history.DigestKey{Sink: "slack:#leads", Period: "2026-W10"}); posted {
				t.Fatal("a failed digest was recorded as posted")
			}
			f.Answer = nil
			res, err = audit(t, store, s, estate(day(1), 120))
			if err != nil || !res.Posted {
				t.Fatalf("rerun after a failure: %+v, %v; want the digest posted", res, err)
			}
		})
	}
}

func TestConcurrentAuditsPostOneDigest(t *testing.T) {
	eachStore(t, func(t *testing.T, hcfg history.Config) {
		f := newFakeSlack(t)
		var sinks []*Sink
		var stores []*history.Store
		for range 3 {
			st := openStore(t, hcfg) // one handle per audit process
			stores = append(stores, st)
			// The losers wait for the winner to confirm: a poll of 5s here
			// sleeps 10ms, and the winner posts within a second.
			sinks = append(sinks, newBotSink(t, f, Config{}, nil, st, WithSleep(func(ctx context.Context, d time.Duration) error {
				return remote.SleepContext(ctx, d/500)
			})))
		}
		var wg sync.WaitGroup
		results := make([]Result, len(sinks))
		errs := make([]error, len(sinks))
		for i := range sinks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := estate(day(0).Add(time.Duration(i)*time.Minute), 130)
				if err := stores[i].Record(context.Background(), r); err != nil {
					errs[i] = err
					return
				}
				results[i], errs[i] = sinks[i].Post(context.Background(), r)
			}()
		}
		wg.Wait()
		posted := 0
		for i := range sinks {
			if errs[i] != nil {
				t.Errorf("audit %d: %v", i, errs[i])
			}
			if results[i].Posted {
				posted++
			}
		}
		for i, res := range results {
			if !res.Posted && !strings.Contains(res.Skipped, "already posted") {
				t.Errorf("audit %d neither posted nor says the digest was posted: %+v", i, res)
			}
		}
		if top := topLevel(f.Sent()); posted != 1 || top != 1 {
			t.Errorf("%d audits posted, %d digests in the channel; want exactly one", posted, top)
		}
	})
}

func TestOwnerMessages(t *testing.T) {
	f := newFakeSlack(t)
	f.Users["alice@example.com"] = "U0ALICE"
	owners := model.Owners{
		"alice": {Email: "alice@example.com"},
		"bob":   {Email: "bob@example.com"}, // Slack does not know this address
		// carol is not in the map
	}
	store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
	s := newBotSink(t, f, Config{OwnerMessages: true}, owners, store)
	res, err := audit(t, store, s, estate(day(0), 6))
	if err != nil {
		t.Fatal(err)
	}
	if res.DirectMessages != 1 || len(res.Fallbacks) != 2 {
		t.Fatalf("result %+v: want 1 direct message and 2 fallbacks", res)
	}
	var dm, fallback []sent
	for _, p := range f.Sent() {
		switch {
		case p.Channel == "D0ALICE":
			dm = append(dm, p)
		case p.ThreadTS != "" && strings.Contains(p.Text, "without a direct message"):
			fallback = append(fallback, p)
		}
	}
	if len(dm) != 1 {
		t.Fatalf("alice got %d direct messages, want 1", len(dm))
	}
	dmText := allText(dm)
	if !strings.Contains(dmText, "*4 open findings*") || !strings.Contains(dmText, "|BF-1000>") || strings.Contains(dmText, "BF-1001") {
		t.Errorf("alice's message should list her 4 findings (BF-1000, not bob's BF-1001):\n%s", dmText)
	}
	fbText := allText(fallback)
	for _, want := range []string{"*bob* (no Slack user with the owners map e-mail): 2 open", "*carol* (not in the owners map): 2 open"} {
		if !strings.Contains(fbText, want) {
			t.Errorf("fallback in the digest thread lacks %q:\n%s", want, fbText)
		}
	}
	if strings.Join(f.LookedUp(), ",") != "alice@example.com,bob@example.com" {
		t.Errorf("looked up %v, want alice's and bob's e-mails once each", f.LookedUp())
	}

	// Rerun in the same period: no digest, no second direct message.
	before := len(f.Sent())
	if _, err := audit(t, store, s, estate(day(1), 6)); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Sent()) - before; n != 0 {
		t.Errorf("rerun sent %d messages, want none", n)
	}
}

func TestPostNeedsAReportTime(t *testing.T) {
	f := newFakeSlack(t)
	s := newBotSink(t, f, Config{Period: PeriodEvery}, nil, nil)
	if _, err := s.Post(context.Background(), &model.Report{}); err == nil {
		t.Fatal("Post of a report without Now succeeded")
	}
}
