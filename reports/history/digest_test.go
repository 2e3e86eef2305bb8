package history

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDigestClaims(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		clock := day(0)
		now := func() time.Time { return clock }
		a := openStore(t, cfg, WithClock(now), WithStaleClaim(time.Hour))
		b := openStore(t, cfg, WithClock(now), WithStaleClaim(time.Hour))
		k := DigestKey{Sink: "slack:#leads", Period: "2026-W10"}
		claim := func(s *Store, force bool) bool {
			t.Helper()
			ok, err := s.ClaimDigest(ctx, k, force)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}

		if !claim(a, false) {
			t.Fatal("first claim refused")
		}
		if claim(b, false) || claim(b, true) {
			t.Fatal("a second run claimed a digest another run is posting")
		}
		if err := a.ReleaseDigest(ctx, k); err != nil {
			t.Fatal(err)
		}
		if posted, _ := a.DigestPosted(ctx, k); posted {
			t.Fatal("a released (failed) digest reads as posted")
		}
		if !claim(b, false) {
			t.Fatal("after a failed post was released, the next run could not claim")
		}
		if err := b.MarkDigestPosted(ctx, k, day(0)); err != nil {
			t.Fatal(err)
		}
		if claim(a, false) {
			t.Fatal("re-run in the same period claimed a posted digest")
		}
		if !claim(a, true) {
			t.Fatal("forced re-post could not claim")
		}
		if err := a.ReleaseDigest(ctx, k); err != nil { // forced re-post failed
			t.Fatal(err)
		}
		if posted, _ := a.DigestPosted(ctx, k); !posted {
			t.Error("a failed forced re-post forgot the earlier posting")
		}
		if at, ok, err := a.LastDigest(ctx, k.Sink, day(7)); err != nil || !ok || !at.Equal(day(0)) {
			t.Errorf("LastDigest = %s %v %v, want %s", at, ok, err, day(0))
		}
		if _, ok, _ := a.LastDigest(ctx, "slack:#other", day(7)); ok {
			t.Error("LastDigest of another sink found one")
		}
	})
}

func TestStaleClaimIsTakenOver(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		clock := day(0)
		now := func() time.Time { return clock }
		crashed := openStore(t, cfg, WithClock(now), WithDigestLease(time.Hour))
		next := openStore(t, cfg, WithClock(now), WithDigestLease(time.Hour))
		k := DigestKey{Sink: "slack:#leads", Period: "2026-W10"}
		if ok, _ := crashed.ClaimDigest(ctx, k, false); !ok {
			t.Fatal("claim refused")
		}
		clock = clock.Add(30 * time.Minute)
		if ok, _ := next.ClaimDigest(ctx, k, false); ok {
			t.Fatal("a fresh claim was taken over")
		}
		clock = clock.Add(time.Hour)
		if ok, _ := next.ClaimDigest(ctx, k, false); !ok {
			t.Fatal("a stale claim was not taken over")
		}
		if err := crashed.MarkDigestPosted(ctx, k, day(0)); err == nil {
			t.Error("the run whose claim was taken over marked the digest posted")
		}
	})
}

func TestConcurrentClaimsYieldOneWinner(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		k := DigestKey{Sink: "slack:#leads", Period: "2026-W10"}
		stores := make([]*Store, 6)
		for i := range stores {
			stores[i] = openStore(t, cfg)
		}
		var wins atomic.Int32
		var wg sync.WaitGroup
		for _, s := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.ClaimDigest(ctx, k, false)
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Errorf("%d runs claimed the same digest, want exactly 1", wins.Load())
		}
	})
}

// A claim is a lease: renewed, it holds; not renewed (the run died), the
// next run takes it over as unconfirmed, told since when messages may have
// landed, and a run that comes while the lease is live learns until when.
// A failed post is taken over at once, also unconfirmed.
func TestDigestLease(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		clock := day(0)
		now := func() time.Time { return clock }
		died := openStore(t, cfg, WithClock(now))
		next := openStore(t, cfg, WithClock(now))
		third := openStore(t, cfg, WithClock(now))
		k := DigestKey{Sink: "slack:#leads", Period: "2026-W10"}
		started := clock
		if c, err := died.Claim(ctx, k, false); err != nil || !c.Held || c.Unconfirmed {
			t.Fatalf("first claim: %+v %v", c, err)
		}
		clock = clock.Add(90 * time.Second)
		if err := died.RenewDigest(ctx, k); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(90 * time.Second) // 3 minutes in, renewed 90s ago
		c, err := next.Claim(ctx, k, false)
		if err != nil || c.Held || !c.Busy || !c.ClaimedAt.Equal(started.Add(90*time.Second)) ||
			!c.Until.Equal(started.Add(90*time.Second+DefaultDigestLease)) || !c.FirstClaimed.Equal(started) {
			t.Fatalf("claim beside a renewed lease: %+v %v; want busy until the lease runs out", c, err)
		}
		clock = clock.Add(DefaultDigestLease) // the lease ran out: the run died
		c, err = next.Claim(ctx, k, false)
		if err != nil || !c.Held || !c.Unconfirmed || !c.Since.Equal(started) {
			t.Fatalf("takeover: %+v %v; want held, unconfirmed since the first claim", c, err)
		}
		if err := died.RenewDigest(ctx, k); !errors.Is(err, ErrClaimLost) {
			t.Errorf("the dead run renewed a lease taken over: %v", err)
		}
		// The second run fails to post: the third takes over at once, and
		// still looks back to the first claim.
		if err := next.ReleaseDigest(ctx, k); err != nil {
			t.Fatal(err)
		}
		c, err = third.Claim(ctx, k, false)
		if err != nil || !c.Held || !c.Unconfirmed || !c.Since.Equal(started) {
			t.Fatalf("after a failed post: %+v %v", c, err)
		}
		if err := third.MarkDigestPosted(ctx, k, day(0)); err != nil {
			t.Fatal(err)
		}
		if c, _ := next.Claim(ctx, k, false); !c.Posted || c.Held {
			t.Errorf("after posting: %+v", c)
		}
		if c, _ := next.Claim(ctx, k, true); !c.Held || c.Unconfirmed {
			t.Errorf("forced re-post of a confirmed digest: %+v; want held, nothing to look for", c)
		}
	})
}
