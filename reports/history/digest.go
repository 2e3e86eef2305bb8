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
	digestClaimed  = "claimed"  // a run holds the lease and is posting
	digestPosted   = "posted"   // confirmed: every message went out
	digestReleased = "released" // a post failed: what landed is unknown
)

// ErrClaimLost means another run took over a claim this Store held (its
// lease ran out), so this run must not post more or mark the digest posted.
var ErrClaimLost = errors.New("digest claim was taken over by another run")

// Claim is where a digest stands for the run that asked to claim it.
type Claim struct {
	// Held: this Store holds the claim now. Post, renewing the lease
	// before each call (RenewDigest), then MarkDigestPosted or, on a
	// failure, ReleaseDigest.
	Held bool
	// Unconfirmed (with Held): the claim was taken over from a run that
	// never confirmed it (it died, or its post failed), so some messages
	// may have landed since Since: look for them before posting any.
	Unconfirmed bool
	Since       time.Time
	// Posted: the digest went out this period (and force was not asked).
	Posted bool
	// Busy: another run holds a live lease, taken or last renewed at
	// ClaimedAt and running out at Until; FirstClaimed is when the
	// unconfirmed attempt began. Nothing says whether that run is still
	// alive before Until.
	Busy                           bool
	ClaimedAt, Until, FirstClaimed time.Time
	// Parts (with Unconfirmed) is the message as the run that first
	// claimed it rendered it (ClaimParts); empty when that run stored none
	// (a store written before version 9).
	Parts string
}

// ClaimDigest is Claim, for callers that only need to know whether they
// hold the claim.
func (s *Store) ClaimDigest(ctx context.Context, k DigestKey, force bool) (bool, error) {
	c, err := s.Claim(ctx, k, force)
	return c.Held, err
}

// Claim reserves the digest k for this Store before posting it, as a
// lease: at most one run holds it at a time. A digest already posted is
// not claimed again unless force. A lease not renewed within the lease
// time (a run that died mid-post), or released after a failed post, is
// taken over, marked Unconfirmed: the caller looks for what landed before
// posting, so nothing goes out twice.
func (s *Store) Claim(ctx context.Context, k DigestKey, force bool) (Claim, error) {
	return s.ClaimParts(ctx, k, force, "")
}

// ClaimParts is Claim that also stores parts, the message as this run
// rendered it, with a new claim. Taking over an unconfirmed claim keeps
// the parts stored by the run that first claimed it and returns them in
// Claim.Parts: the caller posts those, not its own rendering, so a part
// is never posted in two versions. Force replaces them.
func (s *Store) ClaimParts(ctx context.Context, k DigestKey, force bool, parts string) (Claim, error) {
	var c Claim
	err := s.digestTx(ctx, k, func(tx *sql.Tx, cur *digestRow) error {
		c = Claim{}
		now := s.now()
		switch {
		case cur == nil:
			c.Held = true
			_, err := tx.ExecContext(ctx, s.bind(`INSERT INTO digests (sink, period, state, holder, claimed_at, first_claimed_at, parts) VALUES (?, ?, ?, ?, ?, ?, ?)`),
				k.Sink, k.Period, digestClaimed, s.holder, fmtTime(now), fmtTime(now), nullString(parts))
			return err
		case cur.state == digestClaimed && cur.holder != s.holder && !s.leaseOver(cur.claimedAt):
			c.Busy, c.ClaimedAt, c.Until, c.FirstClaimed = true, cur.claimedAt, cur.claimedAt.Add(s.lease), cur.first
			return nil
		case cur.state == digestPosted && !force:
			c.Posted = true
			return nil
		}
		c.Held = true
		first := now
		if cur.state != digestPosted { // claimed but never confirmed, or released
			c.Unconfirmed, c.Since = true, cur.first
			first = cur.first
			if cur.parts.Valid && !force { // some of these parts may be in Slack
				c.Parts, parts = cur.parts.String, cur.parts.String
			}
		}
		_, err := tx.ExecContext(ctx, s.bind(`UPDATE digests SET state = ?, holder = ?, claimed_at = ?, first_claimed_at = ?, parts = ? WHERE sink = ? AND period = ?`),
			digestClaimed, s.holder, fmtTime(now), fmtTime(first), nullString(parts), k.Sink, k.Period)
		return err
	})
	if err != nil {
		return Claim{}, fmt.Errorf("history: %s: claim digest %s: %w", s.dbLabel, k, err)
	}
	return c, nil
}

// RenewDigest extends this Store's lease on k from now; ErrClaimLost when
// another run has taken it over.
func (s *Store) RenewDigest(ctx context.Context, k DigestKey) error {
	err := s.digestTx(ctx, k, func(tx *sql.Tx, cur *digestRow) error {
		if cur == nil || cur.state != digestClaimed || cur.holder != s.holder {
			return ErrClaimLost
		}
		_, err := tx.ExecContext(ctx, s.bind(`UPDATE digests SET claimed_at = ? WHERE sink = ? AND period = ?`),
			fmtTime(s.now()), k.Sink, k.Period)
		return err
	})
	if err != nil {
		return fmt.Errorf("history: %s: renew the claim on digest %s: %w", s.dbLabel, k, err)
	}
	return nil
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

// ReleaseDigest gives up a claim after a failed post. A failed call may
// still have landed, so the digest is not forgotten: the next run takes it
// over at once, as unconfirmed, and looks for what landed before posting.
// A digest posted before (a forced re-post that failed) goes back to
// posted.
func (s *Store) ReleaseDigest(ctx context.Context, k DigestKey) error {
	err := s.digestTx(ctx, k, func(tx *sql.Tx, cur *digestRow) error {
		if cur == nil || cur.state != digestClaimed || cur.holder != s.holder {
			return nil // not ours: nothing to give up
		}
		state := digestReleased
		if cur.postedAt.Valid {
			state = digestPosted
		}
		_, err := tx.ExecContext(ctx, s.bind(`UPDATE digests SET state = ? WHERE sink = ? AND period = ?`), state, k.Sink, k.Period)
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
	first         time.Time // first_claimed_at, claimed_at on rows from before version 5
	postedAt      sql.NullString
	parts         sql.NullString // the claimed message as rendered (version 9)
}

// digestTx runs fn with the current row of k under the writers' lock.
func (s *Store) digestTx(ctx context.Context, k DigestKey, fn func(*sql.Tx, *digestRow) error) error {
	tx, err := s.writeTx(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var cur digestRow
	var claimedAt string
	var first sql.NullString
	err = tx.QueryRowContext(ctx, s.bind(`SELECT state, holder, claimed_at, first_claimed_at, posted_at, parts FROM digests WHERE sink = ? AND period = ?`),
		k.Sink, k.Period).Scan(&cur.state, &cur.holder, &claimedAt, &first, &cur.postedAt, &cur.parts)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		err = fn(tx, nil)
	case err != nil:
		return err
	default:
		if cur.claimedAt, err = parseTime(claimedAt); err != nil {
			return err
		}
		cur.first = cur.claimedAt
		if first.Valid {
			if cur.first, err = parseTime(first.String); err != nil {
				return err
			}
		}
		err = fn(tx, &cur)
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}

// leaseOver reports whether a lease taken or renewed at t has run out.
func (s *Store) leaseOver(t time.Time) bool { return s.now().Sub(t) > s.lease }

// nullString stores "" as NULL: nothing rendered was stored.
func nullString(v string) sql.NullString { return sql.NullString{String: v, Valid: v != ""} }

// UnconfirmedParts returns the parts stored with k's claim when it was
// never confirmed: what a real run taking it over would post (dry runs
// plan them). "" when k is confirmed, unclaimed or has none stored.
func (s *Store) UnconfirmedParts(ctx context.Context, k DigestKey) (string, error) {
	var posted, parts sql.NullString
	err := s.db.QueryRowContext(ctx, s.bind(`SELECT posted_at, parts FROM digests WHERE sink = ? AND period = ? AND state <> ?`),
		k.Sink, k.Period, digestPosted).Scan(&posted, &parts)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("history: %s: read digest %s: %w", s.dbLabel, k, err)
	}
	return parts.String, nil
}
