package slack

import (
	"slices"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

// A rerun in the same period looks up only owners whose message is still
// due (issue 13.6): none once everything went out.
func TestRerunLooksUpOnlyOwnersStillDue(t *testing.T) {
	f := newFakeSlack(t)
	f.Users["alice@example.com"] = "U0ALICE"
	f.Users["bob@example.com"] = "U0BOB"
	owners := model.Owners{"alice": {Email: "alice@example.com"}, "bob": {Email: "bob@example.com"},
		"carol": {Email: "carol@example.com"}} // not in Slack yet
	store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
	s := newBotSink(t, f, Config{OwnerMessages: true}, owners, store)

	run := func(day int) (Result, []string) {
		t.Helper()
		before := len(f.LookedUp())
		res, err := audit(t, store, s, estate(monday.AddDate(0, 0, day), 6))
		if err != nil {
			t.Fatalf("day %d: %v", day, err)
		}
		got := f.LookedUp()[before:]
		slices.Sort(got)
		return res, got
	}

	res, looked := run(0)
	if !res.Posted || res.DirectMessages != 2 || !slices.Equal(looked, []string{"alice@example.com", "bob@example.com", "carol@example.com"}) {
		t.Fatalf("first run: %+v, looked up %v", res, looked)
	}
	// Same week: the digest and alice's and bob's messages went out; only
	// carol, who got none, is looked up again.
	posts := len(f.Sent())
	res, looked = run(1)
	if res.Posted || res.DirectMessages != 0 || !slices.Equal(looked, []string{"carol@example.com"}) {
		t.Errorf("rerun: %+v, looked up %v; want only carol's e-mail", res, looked)
	}
	if n := len(f.Sent()) - posts; n != 0 {
		t.Errorf("rerun posted %d messages", n)
	}
	// carol joins Slack: her message goes out on the next run, then nobody
	// is looked up at all.
	f.AddUser("carol@example.com", "U0CAROL")
	if res, looked = run(2); res.DirectMessages != 1 || !slices.Equal(looked, []string{"carol@example.com"}) {
		t.Errorf("after carol joined: %+v, looked up %v", res, looked)
	}
	if res, looked = run(3); res.DirectMessages != 0 || len(looked) != 0 {
		t.Errorf("nothing due: %+v, looked up %v; want no look-up", res, looked)
	}
}

// --force posts the period's digest again; owners' messages keep their own
// once-per-period rule, so a forced digest does not message every owner
// again (issue 13.12).
func TestForceRepostsTheDigestOnly(t *testing.T) {
	f := newFakeSlack(t)
	f.Users["alice@example.com"] = "U0ALICE"
	owners := model.Owners{"alice": {Email: "alice@example.com"}}
	store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
	if res, err := audit(t, store, newBotSink(t, f, Config{OwnerMessages: true}, owners, store), estate(day(0), 3)); err != nil || res.DirectMessages != 1 {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	lookups := len(f.LookedUp())
	forced := newBotSink(t, f, Config{OwnerMessages: true, Force: true}, owners, store)
	res, err := audit(t, store, forced, estate(day(1), 3))
	if err != nil || !res.Posted {
		t.Fatalf("forced run: %+v, %v; want the digest posted again", res, err)
	}
	if res.DirectMessages != 0 || len(f.LookedUp()) != lookups {
		t.Errorf("forced run sent %d direct messages and %d look-ups; owners were messaged this period already",
			res.DirectMessages, len(f.LookedUp())-lookups)
	}
}
