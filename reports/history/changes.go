package history

import (
	"context"
	"database/sql"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Changes is what moved between two points in time.
type Changes struct {
	// New are open, unwaived findings first seen (or reopened) in the window.
	New []model.Finding
	// Resolved are findings resolved in the window.
	Resolved []model.Finding
}

// ChangesSince lists what moved after since and up to until: the Slack
// digest uses it for "new and resolved since the last digest", which may be
// several runs back.
//
// After Preview, the previewed run counts as recorded: it is replayed in a
// transaction that is rolled back, so a dry run's digest shows what the real
// run's will.
func (s *Store) ChangesSince(ctx context.Context, since, until time.Time) (Changes, error) {
	if p := s.previewed(); p != nil {
		var c Changes
		err := s.record(ctx, p, false, func(tx *sql.Tx) error {
			var err error
			c, err = s.changesSince(ctx, tx, since, until)
			return err
		})
		return c, err
	}
	return s.changesSince(ctx, s.db, since, until)
}

func (s *Store) changesSince(ctx context.Context, q querier, since, until time.Time) (Changes, error) {
	var c Changes
	a, b := fmtTime(since), fmtTime(until)
	newRows, err := s.loadRows(ctx, q, `resolved_at IS NULL AND waived = 0 AND first_seen <= ?
		AND (first_seen > ? OR (reopened_at > ? AND reopened_at <= ?))`, []any{b, a, a, b})
	if err != nil {
		return c, err
	}
	resolvedRows, err := s.loadRows(ctx, q, `resolved_at > ? AND resolved_at <= ?`, []any{a, b})
	if err != nil {
		return c, err
	}
	for _, set := range []struct {
		rows map[string]row
		out  *[]model.Finding
	}{{newRows, &c.New}, {resolvedRows, &c.Resolved}} {
		for _, rw := range set.rows {
			f, err := rw.finding()
			if err != nil {
				return c, err
			}
			*set.out = append(*set.out, f)
		}
		sortFindings(*set.out)
	}
	return c, nil
}
