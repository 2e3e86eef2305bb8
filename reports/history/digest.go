package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// DigestKey names one digest: the sink and destination it goes to (e.g.
// "slack:#platform-leads") and the period it covers (e.g. "2026-W07").
type DigestKey struct {
	Sink   string
	Period string
}

func (k DigestKey) String() string { return k.Sink + " " + k.Period }

// Digest states.
const (
	digestClaimed = "claimed"
	digestPosted  = "posted"
)

// ErrClaimLost means another run took over a claim this Store held (it had
// gone stale), so this run must not mark the digest posted.
var ErrClaimLost = errors.New("digest claim was taken over by another run")

// ClaimDigest reserves the digest k for this Store before posting it. It
// returns false when the digest was already posted (unless force) or when
// another run holds the claim; at most one run holds a claim at a time.
// After claiming, call MarkDigestPosted when every message went out or
// ReleaseDigest when posting failed, so a failed post is never recorded as
// posted. A claim held longer than the stale-claim limit (a run that died
// mid-post) is taken over.
func (s *Store) ClaimDigest(ctx context.Context, k DigestKey, force bool) (bool, error) {
	claimed := false
	err := s.digestTx(ctx, k, func(tx *sql.Tx, cur *digestRow) error {
		now := fmtTime(s.now())
		switch {
		case cur == nil:
			claimed = true
			_, err := tx.ExecContext(ctx, s.bind(`INSERT INTO digests (sink, period, state, holder, claimed_at) VALUES (?, ?, ?, ?, ?)`),
				k.Sink, k.Period, digestClaimed, s.holder, now)
			return err
		case cur.state == digestClaimed && cur.holder != s.holder && !s.claimExpired(cur.claimedAt):
			return nil // another run is posting it now
		case cur.state == digestPosted && !force:
			return nil // done for this period
		}
		claimed = true
		_, err := tx.ExecContext(ctx, s.bind(`UPDATE digests SET state = ?, holder = ?, claimed_at = ? WHERE sink = ? AND period = ?`),
			digestClaimed, s.holder, now, k.Sink, k.Period)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("history: %s: claim digest %s: %w", s.dbLabel, k, err)
	}
	return claimed, nil
}

// MarkDigestPosted records the claimed digest as posted, for the run at
// runAt (the audit's time, which "since the last digest" is measured from).
func (s *Store) MarkDigestPosted(ctx context.Context, k DigestKey, runAt time.Time) error {
	err := s.digestTx(ctx, k, func(tx *sql.Tx, cur *digestRow) error {
		if cur == nil || cur.state != digestClaimed || cur.holder != s.holder {
			return ErrClaimLost
		}
		_, err := tx.ExecContext(ctx, s.bind(`UPDATE digests SET state = ?, posted_at = ?, run_at = ? WHERE sink = ? AND period = ?`),
			digestPosted, fmtTime(s.now()), fmtTime(runAt), k.Sink, k.Period)
		return err
	})
	if err != nil {
		return fmt.Errorf("history: %s: mark digest %s posted: %w", s.dbLabel, k, err)
	}
	return nil
}

// ReleaseDigest gives up a claim after a failed post, so the next run tries
// again. A digest that had been posted before (a forced re-post that
// failed) goes back to posted; one never posted is forgotten.
func (s *Store) ReleaseDigest(ctx context.Context, k DigestKey) error {
	err := s.digestTx(ctx, k, func(tx *sql.Tx, cur *digestRow) error {
		if cur == nil || cur.state != digestClaimed || cur.holder != s.holder {
			return nil // not ours: nothing to give up
		}
		if cur.postedAt.Valid {
			_, err := tx.ExecContext(ctx, s.bind(`UPDATE digests SET state = ? WHERE sink = ? AND period = ?`),
				digestPosted, k.Sink, k.Period)
			return err
		}
		_, err := tx.ExecContext(ctx, s.bind(`DELETE FROM digests WHERE sink = ? AND period = ?`), k.Sink, k.Period)
		return err
	})
	if err != nil {
		return fmt.Errorf("history: %s: release digest %s: %w", s.dbLabel, k, err)
	}
	return nil
}

// DigestPosted reports whether k was posted (dry runs use it to say a real
// run would skip).
func (s *Store) DigestPosted(ctx context.Context, k DigestKey) (bool, error) {
	var posted sql.NullString
	err := s.db.QueryRowContext(ctx, s.bind(`SELECT posted_at FROM digests WHERE sink = ? AND period = ?`), k.Sink, k.Period).Scan(&posted)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("history: %s: read digest %s: %w", s.dbLabel, k, err)
	}
	return posted.Valid, nil
}

// LastDigest returns the audit time of the latest digest posted to sink for
// a run before `before`; ok is false when there was none.
func (s *Store) LastDigest(ctx context.Context, sink string, before time.Time) (time.Time, bool, error) {
	var at sql.NullString
	err := s.db.QueryRowContext(ctx, s.bind(`SELECT MAX(run_at) FROM digests WHERE sink = ? AND posted_at IS NOT NULL AND run_at < ?`),
		sink, fmtTime(before)).Scan(&at)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("history: %s: last digest of %s: %w", s.dbLabel, sink, err)
	}
	t, err := parseNullTime(at)
	return t, at.Valid, err
}

type digestRow struct {
	state, holder string
	claimedAt     time.Time
	postedAt      sql.NullString
}

// digestTx runs fn with the current row of k under the writers' lock.
func (s *Store) digestTx(ctx context.Context, k DigestKey, fn func(*sql.Tx, *digestRow) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	if err := s.lockWriters(ctx, tx); err != nil {
		return err
	}
	var cur digestRow
	var claimedAt string
	err = tx.QueryRowContext(ctx, s.bind(`SELECT state, holder, claimed_at, posted_at FROM digests WHERE sink = ? AND period = ?`),
		k.Sink, k.Period).Scan(&cur.state, &cur.holder, &claimedAt, &cur.postedAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		err = fn(tx, nil)
	case err != nil:
		return err
	default:
		if cur.claimedAt, err = parseTime(claimedAt); err != nil {
			return err
		}
		err = fn(tx, &cur)
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}

// claimExpired reports whether a claim taken at t has outlived the limit.
func (s *Store) claimExpired(t time.Time) bool { return s.now().Sub(t) > s.stale }
