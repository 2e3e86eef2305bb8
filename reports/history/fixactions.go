package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
)

// FixAction is one action `bfaudit fix --apply` took or tried: who, when,
// on what, and the artifact's state it read just before.
type FixAction struct {
	RunID       string
	At          time.Time
	Actor       string
	BackfillID  string
	Fingerprint string
	RuleID      string
	ArtifactURI string
	Source      string
	Action      string
	Command     string
	// Before is the artifact's state as read just before acting (JSON),
	// what an undo needs.
	Before string
	// Result is applied, failed or skipped; Error says why when not
	// applied.
	Result string
	Error  string
}

// Fix action results.
const (
	FixApplied = "applied"
	FixFailed  = "failed"
	FixSkipped = "skipped"
)

// RecordFix stores one fix action. Text that leaves the process passes
// the redactor.
func (s *Store) RecordFix(ctx context.Context, a FixAction) error {
	id, err := newID()
	if err != nil {
		return err
	}
	tx, err := s.writeTx(ctx)
	if err != nil {
		return fmt.Errorf("history: %s: %w", s.dbLabel, err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO fix_actions (id, run_id, at, actor, backfill_id, fingerprint, rule_id,
		artifact_uri, source, action, command, before_state, result, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		id, a.RunID, fmtTime(a.At), a.Actor, a.BackfillID, a.Fingerprint, a.RuleID, a.ArtifactURI, a.Source, a.Action,
		redact.String(a.Command), redact.String(a.Before), a.Result, redact.String(a.Error)); err != nil {
		return fmt.Errorf("history: %s: record fix action: %w", s.dbLabel, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("history: %s: commit: %w", s.dbLabel, err)
	}
	return nil
}

// FixActions lists the recorded actions on a backfill (all when id is
// empty), oldest first.
func (s *Store) FixActions(ctx context.Context, backfillID string) ([]FixAction, error) {
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT run_id, at, actor, backfill_id, fingerprint, rule_id, artifact_uri, source,
		action, command, before_state, result, error FROM fix_actions WHERE ? = '' OR backfill_id = ? ORDER BY at, id`), backfillID, backfillID)
	if err != nil {
		return nil, fmt.Errorf("history: %s: fix actions: %w", s.dbLabel, err)
	}
	defer rows.Close()
	var out []FixAction
	for rows.Next() {
		var a FixAction
		var at string
		if err := rows.Scan(&a.RunID, &at, &a.Actor, &a.BackfillID, &a.Fingerprint, &a.RuleID, &a.ArtifactURI, &a.Source,
			&a.Action, &a.Command, &a.Before, &a.Result, &a.Error); err != nil {
			return nil, fmt.Errorf("history: %s: fix actions: %w", s.dbLabel, err)
		}
		if a.At, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("history: %s: fix actions: %w", s.dbLabel, err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Accepted returns the fingerprints the last recorded run saw open and
// waived, with a waiver not yet expired at now: acceptances a sink
// recorded (an issue closed as accepted on GitHub) that the config does
// not hold, so that fix leaves those findings alone too.
func (s *Store) Accepted(ctx context.Context, now time.Time) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT fingerprint FROM findings
		WHERE resolved_at IS NULL AND waived = 1 AND (waiver_expires IS NULL OR waiver_expires > ?)`), fmtTime(now))
	if err != nil {
		return nil, fmt.Errorf("history: %s: accepted findings: %w", s.dbLabel, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var fp string
		if err := rows.Scan(&fp); err != nil {
			return nil, fmt.Errorf("history: %s: accepted findings: %w", s.dbLabel, err)
		}
		out[fp] = true
	}
	return out, rows.Err()
}

// ErrFixClaimed is returned when another fix run holds the backfill.
var ErrFixClaimed = errors.New("another bfaudit fix --apply is acting on this backfill")

// ClaimFix takes the backfill for one fix run, so that two runs never act
// on it at once; a claim older than the stale age (a run that crashed) is
// taken over. release gives it back.
func (s *Store) ClaimFix(ctx context.Context, backfillID string) (release func(context.Context) error, err error) {
	now := s.now()
	tx, err := s.writeTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("history: %s: %w", s.dbLabel, err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var holder, at string
	err = tx.QueryRowContext(ctx, s.bind(`SELECT holder, claimed_at FROM fix_claims WHERE backfill_id = ?`), backfillID).Scan(&holder, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("history: %s: fix claim: %w", s.dbLabel, err)
	default:
		t, perr := parseTime(at)
		if perr == nil && holder != s.holder && now.Sub(t) < s.stale {
			return nil, fmt.Errorf("%w (claimed %s)", ErrFixClaimed, t.Format(time.RFC3339))
		}
	}
	if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO fix_claims (backfill_id, holder, claimed_at) VALUES (?, ?, ?)
		ON CONFLICT (backfill_id) DO UPDATE SET holder = excluded.holder, claimed_at = excluded.claimed_at`),
		backfillID, s.holder, fmtTime(now)); err != nil {
		return nil, fmt.Errorf("history: %s: fix claim: %w", s.dbLabel, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("history: %s: commit: %w", s.dbLabel, err)
	}
	return func(ctx context.Context) error {
		_, err := s.db.ExecContext(ctx, s.bind(`DELETE FROM fix_claims WHERE backfill_id = ? AND holder = ?`), backfillID, s.holder)
		return err
	}, nil
}
