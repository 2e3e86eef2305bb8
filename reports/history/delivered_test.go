package history

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// A run recorded and never delivered (killed while posting) is no base:
// LastDelivered skips it (issue 41).
func TestLastDeliveredSkipsKilledRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s := openStore(t, cfg)
		if _, ok, err := s.LastDelivered(ctx, day(9)); err != nil || ok {
			t.Fatalf("empty store: ok %v, %v; want none", ok, err)
		}
		record(t, s, report(day(0), okCoverage("bq")))
		if err := s.MarkDelivered(ctx, day(0)); err != nil {
			t.Fatal(err)
		}
		record(t, s, report(day(1), okCoverage("bq"))) // killed: never delivered
		record(t, s, report(day(2), okCoverage("bq"))) // its rerun
		if at, ok, err := s.LastDelivered(ctx, day(2)); err != nil || !ok || !at.Equal(day(0)) {
			t.Errorf("LastDelivered before the rerun = %s %v %v; want %s, not the killed run", at, ok, err, day(0))
		}
	})
}

// Parts stored with a claim are what the run taking over an unconfirmed
// claim gets back, whatever it rendered itself; force replaces them.
func TestClaimKeepsTheFirstRendering(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		clock := day(0)
		now := func() time.Time { return clock }
		a := openStore(t, cfg, WithClock(now))
		b := openStore(t, cfg, WithClock(now))
		k := DigestKey{Sink: "slack:#leads", Period: "2026-W10"}
		if c, err := a.ClaimParts(ctx, k, false, "first"); err != nil || !c.Held || c.Parts != "" {
			t.Fatalf("first claim: %+v %v", c, err)
		}
		clock = clock.Add(DefaultDigestLease + time.Second) // a died
		c, err := b.ClaimParts(ctx, k, false, "second")
		if err != nil || !c.Held || !c.Unconfirmed || c.Parts != "first" {
			t.Fatalf("takeover: %+v %v; want the parts a stored", c, err)
		}
		if err := b.ReleaseDigest(ctx, k); err != nil {
			t.Fatal(err)
		}
		if c, err := a.ClaimParts(ctx, k, false, "third"); err != nil || c.Parts != "first" {
			t.Fatalf("second takeover: %+v %v; want the first rendering still", c, err)
		}
		if err := a.ReleaseDigest(ctx, k); err != nil {
			t.Fatal(err)
		}
		if c, err := b.ClaimParts(ctx, k, true, "forced"); err != nil || c.Parts != "" {
			t.Fatalf("forced claim: %+v %v; want its own rendering", c, err)
		}
		if err := b.ReleaseDigest(ctx, k); err != nil {
			t.Fatal(err)
		}
		if c, err := a.ClaimParts(ctx, k, false, "x"); err != nil || c.Parts != "forced" {
			t.Errorf("after the forced claim: %+v %v; want the forced rendering", c, err)
		}
	})
}

// A store from before version 9 keeps working: its runs count as
// delivered, and its unconfirmed claims carry no parts.
func TestVersion9KeepsOldStores(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:8] {
		for _, stmt := range statements(m.sql) {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO schema_version VALUES (?, ?, ?)`, m.version, m.name, fmtTime(day(0))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO runs (id, at, findings, waived, by_severity, complete) VALUES ('r0', ?, 0, 0, '{}', 1)`, fmtTime(day(0))); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO digests (sink, period, state, holder, claimed_at, first_claimed_at) VALUES ('slack:#leads', '2026-W10', 'released', 'old', ?, ?)`,
		fmtTime(day(0)), fmtTime(day(0))); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s := openStore(t, Config{Path: path})
	if at, ok, err := s.LastDelivered(ctx, day(1)); err != nil || !ok || !at.Equal(day(0)) {
		t.Errorf("an old run: LastDelivered = %s %v %v; want it delivered", at, ok, err)
	}
	c, err := s.ClaimParts(ctx, DigestKey{Sink: "slack:#leads", Period: "2026-W10"}, false, "new")
	if err != nil || !c.Held || !c.Unconfirmed || c.Parts != "" {
		t.Errorf("an old unconfirmed claim: %+v %v; want it taken over without parts", c, err)
	}
}
