package history

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

// Fix actions round-trip, with secrets masked in what is stored.
func TestRecordFix(t *testing.T) {
	redact.Add("hunter2-secret")
	t.Cleanup(redact.Reset)
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s := openStore(t, cfg)
		a := FixAction{RunID: "r1", At: day(1), Actor: "alice", BackfillID: "BF-1", Fingerprint: "fp", RuleID: "BF003",
			ArtifactURI: "postgres://pg/db/grant/x/table/s.t", Source: "pg", Action: "revoke_grant", Command: "psql",
			Before: `{"found":true,"state":{"privileges":"INSERT"},"dsn":"postgres://u:hunter2-secret@h"}`, Result: FixApplied}
		if err := s.RecordFix(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordFix(ctx, FixAction{RunID: "r1", At: day(1), BackfillID: "BF-2", Action: "drop_table", Result: FixFailed, Error: "boom"}); err != nil {
			t.Fatal(err)
		}
		got, err := s.FixActions(ctx, "BF-1")
		if err != nil || len(got) != 1 {
			t.Fatalf("%v %+v", err, got)
		}
		g := got[0]
		if g.Actor != "alice" || !g.At.Equal(day(1)) || g.Action != "revoke_grant" || g.Result != FixApplied ||
			!strings.Contains(g.Before, `"privileges":"INSERT"`) || strings.Contains(g.Before, "hunter2-secret") {
			t.Errorf("stored %+v", g)
		}
		if all, _ := s.FixActions(ctx, ""); len(all) != 2 {
			t.Errorf("all actions: %d", len(all))
		}
	})
}

// Only one fix run acts on a backfill at a time; a crashed run's claim
// goes stale.
func TestClaimFix(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		clock := day(0)
		now := func() time.Time { return clock }
		a := openStore(t, cfg, WithClock(now), WithStaleClaim(time.Hour))
		b := openStore(t, cfg, WithClock(now), WithStaleClaim(time.Hour))
		release, err := a.ClaimFix(ctx, "BF-1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.ClaimFix(ctx, "BF-1"); !errors.Is(err, ErrFixClaimed) {
			t.Fatalf("second claim: %v, want ErrFixClaimed", err)
		}
		if r, err := b.ClaimFix(ctx, "BF-2"); err != nil {
			t.Fatalf("another backfill: %v", err)
		} else {
			_ = r(ctx)
		}
		if err := release(ctx); err != nil {
			t.Fatal(err)
		}
		rb, err := b.ClaimFix(ctx, "BF-1")
		if err != nil {
			t.Fatalf("after release: %v", err)
		}
		clock = clock.Add(2 * time.Hour) // b crashed holding it
		if _, err := a.ClaimFix(ctx, "BF-1"); err != nil {
			t.Fatalf("stale claim not taken over: %v", err)
		}
		_ = rb
	})
}

// Accepted lists open waived findings whose waiver has not expired.
func TestAccepted(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s := openStore(t, cfg)
		accepted := finding("BF005", "BF-1", "bq://t1", "bq", "p", model.SeverityMedium)
		accepted.Waiver = &model.Waiver{Reason: "kept for audit", Origin: "github"}
		expiring := finding("BF005", "BF-1", "bq://t2", "bq", "p", model.SeverityMedium)
		expiring.Waiver = &model.Waiver{Reason: "until Monday", Expires: day(2)}
		plain := finding("BF006", "BF-1", "q://x", "bq", "p", model.SeverityMedium)
		if err := s.Record(ctx, report(day(0), okCoverage("bq"), accepted, expiring, plain)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Accepted(ctx, day(3))
		if err != nil {
			t.Fatal(err)
		}
		if !got[accepted.Fingerprint] || got[expiring.Fingerprint] || got[plain.Fingerprint] || len(got) != 1 {
			t.Errorf("accepted = %v", got)
		}
	})
}
