package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Restore puts back, into est, the last known description of every backfill
// whose describing plan did not answer this run and that no plan which did
// answer describes now. The restored backfill says so (LastKnown, a note),
// so rules, the lifecycle and every sink judge it as last read, not from
// what is left (a record alone, or nothing). It returns the ids restored.
func (s *Store) Restore(ctx context.Context, est *model.Estate) ([]string, error) {
	ans := model.AnswersOf(est.Coverage)
	described := map[model.BackfillID]bool{}
	for _, b := range est.Backfills {
		if ans.Described(b) {
			described[model.ParseID(b.ID)] = true
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT backfill_id, source, path, seen_at, description FROM backfill_descriptions`)
	if err != nil {
		return nil, fmt.Errorf("history: %s: read backfill descriptions: %w", s.dbLabel, err)
	}
	defer rows.Close()
	var restored []string
	for rows.Next() {
		var id, source, path, seen, desc string
		if err := rows.Scan(&id, &source, &path, &seen, &desc); err != nil {
			return nil, fmt.Errorf("history: %s: read backfill description: %w", s.dbLabel, err)
		}
		if described[model.ParseID(id)] || ans.Answered(source, path) {
			continue // described now, or its plan answered and no longer describes it
		}
		var b model.Backfill
		if err := json.Unmarshal([]byte(desc), &b); err != nil {
			return nil, fmt.Errorf("history: %s: backfill %s: decode description: %w", s.dbLabel, id, err)
		}
		at, err := parseTime(seen)
		if err != nil {
			return nil, fmt.Errorf("history: %s: backfill %s: %w", s.dbLabel, id, err)
		}
		b.Origin, b.LastKnown = model.OriginPlan, at
		b.Notes = []string{fmt.Sprintf("%s did not answer this run: described as last read on %s",
			model.Unit(source, path), at.UTC().Format("2006-01-02"))}
		est.Backfills = append(est.Backfills, b)
		restored = append(restored, b.ID)
	}
	return restored, rows.Err()
}

// Carry adds to r the findings still open in the store that this run did
// not see and may not resolve, because a unit they rest on did not answer:
// they were not re-checked, so they stay as last seen, each naming the
// units that did not answer (Finding.Unread). Every sink then shows them
// open, unticked and at their last severity.
func (s *Store) Carry(ctx context.Context, r *model.Report) (int, error) {
	open, err := s.loadRows(ctx, s.db, `resolved_at IS NULL`, nil)
	if err != nil {
		return 0, err
	}
	seen := make(map[string]bool, len(r.Findings))
	for _, f := range r.Findings {
		seen[f.Fingerprint] = true
	}
	ans := model.AnswersOf(r.Coverage)
	n := 0
	for fp, rw := range open {
		if seen[fp] {
			continue
		}
		unread := ans.Unanswered(rw.basis())
		if len(unread) == 0 {
			continue
		}
		f, err := rw.finding()
		if err != nil {
			return n, err
		}
		f.Unread = unread
		r.Findings = append(r.Findings, f)
		n++
	}
	return n, nil
}

// storeDescriptions remembers each backfill as its plan described it this
// run; restored ones keep their older entry.
func (s *Store) storeDescriptions(ctx context.Context, tx *sql.Tx, backfills []model.BackfillReport, now time.Time) error {
	for _, br := range backfills {
		b := *br.Backfill // a copy: Notes are dropped from what is stored, not from the report
		if !br.Known || b.Source.Source == "" || !b.LastKnown.IsZero() {
			continue
		}
		b.Notes = nil
		desc, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("history: encode backfill %s: %w", b.ID, err)
		}
		if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO backfill_descriptions (backfill_id, source, path, seen_at, description)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (backfill_id) DO UPDATE SET source = excluded.source, path = excluded.path,
			seen_at = excluded.seen_at, description = excluded.description
			WHERE backfill_descriptions.seen_at <= excluded.seen_at`),
			string(model.ParseID(b.ID)), b.Source.Source, b.Source.Path, fmtTime(now), string(desc)); err != nil {
			return fmt.Errorf("history: %s: store backfill %s: %w", s.dbLabel, b.ID, err)
		}
	}
	return nil
}
