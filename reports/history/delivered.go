package history

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// A run is delivered once its sinks ran to the end. A run recorded and
// then killed while posting is not: it stays in the trend, but no digest
// compares with it, so the run that recovers it says what the killed run
// would have said (issue 41) instead of comparing the week with itself.

// MarkDelivered records that the run at at (its audit time, r.Now) got
// through its sinks.
func (s *Store) MarkDelivered(ctx context.Context, at time.Time) error {
	if _, err := s.db.ExecContext(ctx, s.bind(`UPDATE runs SET delivered_at = ? WHERE at = ? AND delivered_at IS NULL`),
		fmtTime(s.now()), fmtTime(at.UTC())); err != nil {
		return fmt.Errorf("history: %s: mark the run of %s delivered: %w", s.dbLabel, fmtTime(at), err)
	}
	return nil
}

// LastDelivered returns the audit time of the latest delivered run before
// `before`; ok is false when there was none.
func (s *Store) LastDelivered(ctx context.Context, before time.Time) (time.Time, bool, error) {
	var at sql.NullString
	err := s.db.QueryRowContext(ctx, s.bind(`SELECT MAX(at) FROM runs WHERE delivered_at IS NOT NULL AND at < ?`),
		fmtTime(before.UTC())).Scan(&at)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("history: %s: last delivered run: %w", s.dbLabel, err)
	}
	t, err := parseNullTime(at)
	return t, at.Valid, err
}
